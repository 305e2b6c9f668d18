import type { StoredEvent } from "../../events/stored-event.js";
import { HistoryFold } from "../history-fold.js";
import type { Item } from "../store/commit-item.js";
import { itemToCommit } from "../store/commit-item.js";
import type { EventStore } from "../store/event-store.js";
import { packSnapshot, SNAPSHOT_EVERY } from "../store/view-store.js";
import type { ViewBatches } from "./view-batches.js";

/**
 * One incident folded from nothing as its events arrive, its snapshots handed to the batches
 * at every multiple of SNAPSHOT_EVERY exactly as the projector takes them.
 */
export class FoldFromNothing {
  private readonly fold: HistoryFold;

  constructor(
    events: EventStore,
    readonly incidentId: string,
    private readonly batches: ViewBatches,
  ) {
    this.fold = new HistoryFold(events, incidentId);
  }

  get version(): number {
    return this.fold.state.version;
  }

  /** Folds one event; a promise only when the step read the store or a snapshot is handed over. */
  push(event: StoredEvent): Promise<void> | undefined {
    const pending = this.fold.push(event);
    return pending ? pending.then(() => this.snapshotAt(event)) : this.snapshotAt(event);
  }

  private snapshotAt(event: StoredEvent): Promise<void> | undefined {
    const state = this.fold.state;
    if (state.version !== event.version || state.version % SNAPSHOT_EVERY !== 0) return undefined;
    // Packed now (the projector copies the draft and packs it later; the bytes are the same).
    return this.batches.addSnapshot(packSnapshot(state));
  }

  /** Hands the view over; the fold is done with its draft, so it goes without a copy. */
  finish(): Promise<void> {
    return this.batches.addView(this.fold.state);
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
 * The rebuild of a views table that holds no view: one full, parallel scan of the events
 * table reads every commit item exactly once, and each incident is folded from nothing as its
 * items go by — no read of a view that cannot exist, no second read of the heads. DynamoDB
 * returns an incident's items together and in version order (its partition, by sort key); the
 * scan still checks it: an incident whose items come apart, or out of order, is left to the
 * projector afterwards (the fold refuses a gap, and an incident met twice is not folded twice).
 */
export async function scanAndFold(
  events: EventStore,
  batches: ViewBatches,
  segments: number,
): Promise<ScanOutcome> {
  const met = new Set<string>();
  const again = new Set<string>();
  let folded = 0;
  const segment = async (index: number) => {
    let run: FoldFromNothing | null = null;
    let runId: string | null = null;
    const end = () => {
      if (!run) return undefined;
      folded += run.version;
      return run.finish();
    };
    // Items are handled synchronously, page by page; only a store read, a snapshot or a view
    // handed over (which may wait for room among the writes) is awaited.
    for await (const page of events.scanCommitPages(index, segments)) {
      for (const item of page) {
        const incidentId = item.incidentId?.S ?? "";
        if (incidentId !== runId) {
          const ended = end();
          if (ended) await ended;
          runId = incidentId;
          run = met.has(incidentId) ? null : new FoldFromNothing(events, incidentId, batches);
          if (!run) again.add(incidentId);
          met.add(incidentId);
        }
        if (!run) continue;
        try {
          const pending = pushCommit(run, item);
          if (pending) await pending;
        } catch {
          // A gap (items out of order) or an unreadable commit: the projector decides, and reports.
          again.add(incidentId);
          run = null;
        }
      }
    }
    await end();
  };
  await Promise.all(Array.from({ length: segments }, (_, i) => segment(i)));
  return { incidents: met.size, events: folded, again: [...again] };
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
