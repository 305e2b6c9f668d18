import { EditorialRows } from "../../events/editorial.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { type EventLookup, HistoryFold } from "../history-fold.js";
import type { Item } from "../store/commit-item.js";
import { itemToCommit } from "../store/commit-item.js";
import type { EventStore } from "../store/event-store.js";
import { packSnapshot, packView, SNAPSHOT_EVERY } from "../store/view-items.js";
import type { ViewBatches } from "./view-batches.js";

/**
 * One incident folded from nothing as its events arrive, its snapshots handed over at every
 * multiple of SNAPSHOT_EVERY exactly as the projector takes them.
 */
export class FoldFromNothing {
  private readonly fold: HistoryFold;
  /** Every link and attribution the fold set, for the editorial index (the state keeps the latest). */
  private readonly rows = new EditorialRows();

  constructor(
    events: EventLookup,
    readonly incidentId: string,
    private readonly sink: ViewBatches,
  ) {
    this.fold = new HistoryFold(events, incidentId);
  }

  get version(): number {
    return this.fold.state.version;
  }

  /** Folds one event; a promise only when the step read the store or a snapshot is handed over. */
  push(event: StoredEvent): Promise<void> | undefined {
    const pending = this.fold.push(event);
    return pending ? pending.then(() => this.folded(event)) : this.folded(event);
  }

  private folded(event: StoredEvent): Promise<void> | undefined {
    const state = this.fold.state;
    this.rows.note(state.editorial, event);
    if (state.version !== event.version || state.version % SNAPSHOT_EVERY !== 0) return undefined;
    // Packed now (the projector copies the draft and packs it later; the bytes are the same).
    return this.sink.addSnapshot(packSnapshot(state));
  }

  /** Hands the view over, packed: the fold is done with its draft. */
  finish(): Promise<void> | undefined {
    return this.sink.addView(packView(this.fold.state, this.rows));
  }
}

export interface ScanOutcome {
  /** Incidents met in the scan. */
  incidents: number;
  /** Events folded. */
  events: number;
  /**
   * Incidents the scan did not hand over whole, in order, in one run (their items came apart,
   * or a commit could not be folded): the caller projects them one by one, from whatever view
   * of them was written.
   */
  again: string[];
}

/**
 * Each incident folded from nothing as its items go by in the scan's segments. DynamoDB
 * returns an incident's items together and in version order (its partition, by sort key); this
 * still checks it: an incident whose items come apart, or out of order, is left to the
 * projector afterwards (the fold refuses a gap, and an incident met twice is not folded twice).
 */
export class ScanFolds {
  private readonly met = new Set<string>();
  private readonly again = new Set<string>();
  private folded = 0;
  private readonly runs: (FoldFromNothing | null)[];
  private readonly runIds: (string | null)[];

  constructor(
    private readonly events: EventLookup,
    private readonly sink: ViewBatches,
    segments: number,
  ) {
    this.runs = new Array(segments).fill(null);
    this.runIds = new Array(segments).fill(null);
  }

  // Items are handled synchronously; only a store read, a snapshot or a view handed over (which
  // may wait for room among the writes) is awaited.
  async page(segment: number, items: Item[]): Promise<void> {
    for (const item of items) {
      const incidentId = item.incidentId?.S ?? "";
      if (incidentId !== this.runIds[segment]) {
        const ended = this.finish(segment);
        if (ended) await ended;
        const run = this.met.has(incidentId) ? null : new FoldFromNothing(this.events, incidentId, this.sink);
        if (!run) this.again.add(incidentId);
        this.met.add(incidentId);
        this.runs[segment] = run;
        this.runIds[segment] = incidentId;
      }
      const run = this.runs[segment];
      if (!run) continue;
      try {
        const pending = pushCommit(run, item);
        if (pending) await pending;
      } catch {
        // A gap (items out of order) or an unreadable commit: the projector decides, and reports.
        this.again.add(incidentId);
        this.runs[segment] = null;
      }
    }
  }

  async end(segment: number): Promise<void> {
    await this.finish(segment);
    this.runIds[segment] = null;
  }

  async outcome(): Promise<ScanOutcome> {
    return { incidents: this.met.size, events: this.folded, again: [...this.again] };
  }

  private finish(segment: number): Promise<void> | undefined {
    const run = this.runs[segment];
    if (!run) return undefined;
    this.runs[segment] = null;
    this.folded += run.version;
    return run.finish();
  }
}

/**
 * The rebuild of a views table that holds no view: one full, parallel scan of the events
 * table reads every commit item exactly once, and each incident is folded from nothing as its
 * items go by — no read of a view that cannot exist, no second read of the heads. The next
 * page of a segment is read while the last one is folded, and no page is folded while the
 * writes have no room.
 */
export async function scanAndFold(
  events: EventStore,
  batches: ViewBatches,
  segments: number,
): Promise<ScanOutcome> {
  const folder = new ScanFolds(events, batches, segments);
  const segment = async (index: number) => {
    let folding: Promise<void> = Promise.resolve();
    for await (const page of events.scanCommitPages(index, segments)) {
      await folding;
      await batches.room();
      folding = folder.page(index, page);
    }
    await folding;
    await folder.end(index);
  };
  await Promise.all(Array.from({ length: segments }, (_, i) => segment(i)));
  return folder.outcome();
}

/** Folds a commit's events; a promise only once one of them returns one. */
function pushCommit(run: FoldFromNothing, item: Item): Promise<void> | undefined {
  const events = itemToCommit(item).events;
  for (let i = 0; i < events.length; i++) {
    const pending = run.push(events[i] as StoredEvent);
    if (pending) return pending.then(() => pushRest(run, events, i + 1));
  }
  return undefined;
}

async function pushRest(run: FoldFromNothing, events: StoredEvent[], from: number): Promise<void> {
  for (let i = from; i < events.length; i++) await run.push(events[i] as StoredEvent);
}
