import type { SpillLog, SpillPiece } from "../events/spill.js";
import type { StoredEvent } from "../events/stored-event.js";
import {
  type Answer,
  type FoldStep,
  foldStart,
  foldStep,
  type IncidentState,
  type Need,
} from "../events/summary.js";

/** The reads a fold step may ask of the event store: an event by id, a page of events before one. */
export interface EventLookup {
  eventsBetween(incidentId: string, after: number, last: number): Promise<StoredEvent[]>;
  findEvent(incidentId: string, eventId: string): Promise<StoredEvent | null>;
}

/** Reads sealed pieces of an incident's spilled lists (ViewStore): what a summary or a rare step needs. */
export interface PieceLookup {
  getPieces(incidentId: string, wanted: readonly { log: SpillLog; index: number }[]): Promise<SpillPiece[]>;
}

/** Where a fold starts: an empty state, a copy of `from` (left as it was), or `onto` itself. */
export interface FoldStart {
  from?: IncidentState | undefined;
  /** A state the caller gives up to the fold, which folds in place instead of copying it first. */
  onto?: IncidentState | undefined;
}

/** The latest events of this fold kept at hand, so a walk back rarely reads the store. */
const KEPT_HERE = 500;
/** Events read back per `before` need, in one query: a walk back is rare, and mostly short. */
const WALK_PAGE = 100;
/**
 * How long a fold runs before it gives the event loop a turn: where the projector and the API
 * share one process (`npm start`), readers (and /health) are answered while a heavy incident folds.
 */
const FOLD_SLICE_MS = 20;

/**
 * A fold fed one event at a time, answering what a step asks of the history — the event a
 * retraction names, a few events before the current one — from the events it was fed when it
 * has them, else from the store; a sealed piece of a spilled list (events/spill.ts) from
 * `pieces`. For a driver that does not hold the events as one iterable
 * (the rebuild hands it the items of a table scan); `foldWithStore` is the same over an iterable.
 */
export class HistoryFold {
  /** The draft, folded up to the last event pushed; it must be copied to be kept. */
  readonly state: IncidentState;
  /** The last KEPT_HERE events fed, by version modulo KEPT_HERE (a ring: no churn per event). */
  private readonly here: (StoredEvent | undefined)[] = new Array(KEPT_HERE);

  constructor(
    private readonly store: EventLookup,
    readonly incidentId: string,
    start: FoldStart = {},
    private readonly pieces?: PieceLookup,
  ) {
    this.state = start.onto ?? foldStart(incidentId, start.from);
  }

  /** Folds one event; a promise only when the step asked the store for something. */
  push(event: StoredEvent): Promise<void> | undefined {
    this.here[event.version % KEPT_HERE] = event;
    const step = foldStep(this.state, event);
    const first = step.next();
    return first.done ? undefined : this.answerAll(step, first.value);
  }

  private async answerAll(step: FoldStep, need: Need): Promise<void> {
    for (let r = step.next(await this.answer(need)); !r.done; ) r = step.next(await this.answer(r.value));
  }

  /** The event at `version` if it is one of the last KEPT_HERE fed. */
  private kept(version: number): StoredEvent | undefined {
    const event = version >= 1 ? this.here[version % KEPT_HERE] : undefined;
    return event?.version === version ? event : undefined;
  }

  private async answer(need: Need): Promise<Answer> {
    const { store, incidentId } = this;
    if (need.need === "piece") {
      const [found] = (await this.pieces?.getPieces(incidentId, [need])) ?? [];
      return found ?? null;
    }
    if (need.need === "event") {
      for (const e of this.here) if (e?.eventId === need.eventId) return e;
      return store.findEvent(incidentId, need.eventId);
    }
    const last = need.version - 1;
    if (this.kept(last)) {
      const page: StoredEvent[] = [];
      for (let e = this.kept(last); e; e = this.kept(e.version - 1)) page.push(e);
      return page;
    }
    return (await store.eventsBetween(incidentId, Math.max(0, last - WALK_PAGE), last)).reverse();
  }
}

/**
 * Folds events through a `HistoryFold`, from `from` or `onto` (FoldStart). `atEach` sees the
 * draft after every event, and the event (the projector takes its snapshots and the sources
 * named there); it must copy what it keeps.
 */
export async function foldWithStore(
  store: EventLookup,
  incidentId: string,
  events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>,
  options: FoldStart & {
    atEach?: (draft: IncidentState, event: StoredEvent) => void;
    pieces?: PieceLookup;
  } = {},
): Promise<IncidentState> {
  const { atEach, pieces, ...start } = options;
  const fold = new HistoryFold(store, incidentId, start, pieces);
  let sliceFrom = performance.now();
  for await (const event of events) {
    const pending = fold.push(event);
    if (pending) await pending;
    atEach?.(fold.state, event);
    // A long incident's fold runs for seconds: between events, let the process answer others.
    if (performance.now() - sliceFrom > FOLD_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceFrom = performance.now();
    }
  }
  return fold.state;
}
