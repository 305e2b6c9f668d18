import type { SpillLog, SpillPiece } from "../events/spill.js";
import type { StoredEvent } from "../events/stored-event.js";
import { type Answer, foldStart, foldStep, type IncidentState, type Need } from "../events/summary.js";

/** The reads a fold step may ask of the event store: an event by id, a page of events before one. */
export interface EventLookup {
  eventsBetween(incidentId: string, after: number, last: number): Promise<StoredEvent[]>;
  findEvent(incidentId: string, eventId: string): Promise<StoredEvent | null>;
}

/** Reads sealed pieces of an incident's spilled lists (ViewStore): what a summary or a rare step needs. */
export interface PieceLookup {
  getPieces(incidentId: string, wanted: readonly { log: SpillLog; index: number }[]): Promise<SpillPiece[]>;
}

/** The latest events of this fold kept at hand, so a walk back rarely reads the store. */
const KEPT_HERE = 500;
/** Events read back per `before` need, in one query: a walk back is rare, and mostly short. */
const WALK_PAGE = 100;

/**
 * Folds events onto `from` (left as it was), answering what a step asks of the history —
 * the event a retraction names, a few events before the current one — from the events of this
 * fold when it has them, else from the store; a sealed piece of a spilled list (events/spill.ts)
 * from `pieces`. `atEach` sees the draft after every event (the
 * projector takes its snapshots there); it must copy what it keeps.
 */
export async function foldWithStore(
  store: EventLookup,
  incidentId: string,
  events: Iterable<StoredEvent> | AsyncIterable<StoredEvent>,
  from?: IncidentState,
  atEach?: (draft: IncidentState) => void,
  pieces?: PieceLookup,
): Promise<IncidentState> {
  const draft = foldStart(incidentId, from);
  const here = new Map<number, StoredEvent>();
  const answer = async (need: Need): Promise<Answer> => {
    if (need.need === "piece") {
      const [found] = (await pieces?.getPieces(incidentId, [need])) ?? [];
      return found ?? null;
    }
    if (need.need === "event") {
      for (const e of here.values()) if (e.eventId === need.eventId) return e;
      return store.findEvent(incidentId, need.eventId);
    }
    const last = need.version - 1;
    if (here.has(last)) {
      const page: StoredEvent[] = [];
      for (let v = last; v >= 1 && here.has(v); v--) page.push(here.get(v) as StoredEvent);
      return page;
    }
    return (await store.eventsBetween(incidentId, Math.max(0, last - WALK_PAGE), last)).reverse();
  };
  for await (const event of events) {
    here.set(event.version, event);
    here.delete(event.version - KEPT_HERE);
    const step = foldStep(draft, event);
    for (let r = step.next(); !r.done; ) r = step.next(await answer(r.value));
    atEach?.(draft);
  }
  return draft;
}
