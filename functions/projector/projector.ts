import { EditorialRows } from "../../events/editorial.js";
import { Mentions } from "../../events/finding/search-doc.js";
import { GENESIS_HASH } from "../../events/stored-event.js";
import { type IncidentState, retractionsMark, withoutUnsaved } from "../../events/summary.js";
import { BoundedLru } from "../bounded-lru.js";
import type { EditorialIndex } from "../editorial/editorial-index.js";
import { foldWithStore } from "../history-fold.js";
import { commitsContinuing } from "../store/carried-commits.js";
import type { Commit } from "../store/commit-item.js";
import type { EventStore } from "../store/event-store.js";
import { SNAPSHOT_EVERY, type ViewStore } from "../store/view-store.js";

export interface ProjectionResult {
  incidentId: string;
  from: number;
  to: number;
  saved: boolean;
}

/**
 * Packed bytes of the fold states a projector remembers. Weighed by size, not counted: a long
 * incident's state is a thousand times a short one's, and a projector that meets many of them
 * (one Lambda's memory, the local server during an import) must not hold them all.
 */
const RECENT_STATE_BYTES = 4_000_000;

/** A fold state as saved, and the size of its packed form (what `recent` weighs). */
interface Remembered {
  state: IncidentState;
  bytes: number;
}

export type AfterSave = (incidentId: string, state?: IncidentState, mentions?: Mentions) => Promise<void>;

export interface ProjectorOptions {
  /** Where the incidents this one links to learn of it, and its attributions are kept whole (functions/editorial). */
  editorial?: EditorialIndex;
  /**
   * Derived reads kept beside the view (the finding index), brought forward after each save:
   * given the state just saved and what the events folded name, or nothing when a redelivered
   * record folded nothing new.
   */
  afterSave?: AfterSave;
  /** Packed bytes of fold states remembered between projections (default RECENT_STATE_BYTES). */
  rememberedBytes?: number;
}

/**
 * Brings one incident's view forward. It trusts what triggered it no further than the store:
 * whatever records arrive, duplicated or out of order, it folds onto the state at the view's
 * version either the commits they carry (only when those continue that state exactly) or every
 * stored event after it, then saves with a condition on the version.
 *
 * Its cost follows the new events, not the incident: the state it folds onto is bounded
 * (events/summary.ts), the read starts after the view's version, and a step that needs an
 * older event reads just that one. Crossing a multiple of SNAPSHOT_EVERY, it also saves the
 * state as it stood there, for past views.
 *
 * The records carry their commits (NEW_IMAGE): when those continue the state (checked from the
 * state's head by store/carried-commits.ts: versions and hash chain) the fold skips the Query,
 * since the stored items are what it would have returned first. A gap, reordering, only duplicates, a
 * record that does not decode: the store is read. Every record is delivered at least once, so
 * commits after the last carried one are folded when their own records come.
 */
export class Projector {
  private readonly recent: BoundedLru<string, Remembered>;
  private readonly editorial?: EditorialIndex;
  private readonly afterSave?: AfterSave;

  constructor(
    private readonly events: EventStore,
    private readonly views: ViewStore,
    options: ProjectorOptions = {},
  ) {
    this.recent = new BoundedLru(options.rememberedBytes ?? RECENT_STATE_BYTES, (_id, r) => r.bytes);
    this.editorial = options.editorial;
    this.afterSave = options.afterSave;
  }

  async project(incidentId: string, carried: readonly Commit[] = []): Promise<ProjectionResult> {
    // The remembered state is handed to this fold, which folds it in place (no copy), so it is
    // forgotten until saved again: a fold that fails leaves nothing half-folded remembered.
    const kept = this.recent.get(incidentId);
    if (kept) this.recent.delete(incidentId);
    const remembered = kept?.state;
    // A record that starts the incident (version 1) needs no view read: none can be behind it.
    // Redelivered after later ones, its fold is refused by the view's version condition.
    const starts = carried[0]?.version === 1;
    const base = remembered ?? (starts ? undefined : ((await this.views.getState(incidentId)) ?? undefined));
    const from = base?.version ?? 0;
    const head = { version: from, hash: base?.headHash ?? GENESIS_HASH };
    const snapshots: IncidentState[] = [];
    let folded = 0;
    const mentions = new Mentions(from);
    let retractions = retractionsMark(base);
    const rows = new EditorialRows();
    const state = await foldWithStore(
      this.events,
      incidentId,
      commitsContinuing(incidentId, head, carried)?.flatMap((c) => c.events) ??
        this.events.events(incidentId, { after: from, afterEndsCommit: true }),
      {
        onto: base,
        atEach: (draft, event) => {
          folded += 1;
          const mark = retractionsMark(draft);
          mentions.note(event, mark !== retractions);
          retractions = mark;
          rows.note(draft.editorial, event);
          if (draft.version % SNAPSHOT_EVERY === 0) snapshots.push(structuredClone(withoutUnsaved(draft)));
        },
        pieces: this.views,
      },
    );
    if (folded === 0) {
      // Remembered again as it was; a state just read from the view is not (its size is unknown).
      if (kept) this.recent.set(incidentId, kept);
      // A record delivered again after a failure past the save: the index catches up now.
      if (this.afterSave) await this.afterSave(incidentId);
      return { incidentId, from, to: from, saved: false };
    }
    // Pieces sealed by this fold, snapshots, and the links and attributions it folded (the
    // editorial index, idempotent: a replay rewrites the same entries), then the view: a view at
    // version N vouches that all of them up to N were written, so a failure before it is folded
    // again by the record's retry, which would fold nothing past a saved view.
    const stored = withoutUnsaved(state);
    await this.views.savePieces(incidentId, state.unsaved);
    await Promise.all(snapshots.map((s) => this.views.saveSnapshot(s)));
    if (rows.links.length + rows.attributions.length > 0) await this.editorial?.record(incidentId, rows);
    const { saved, stateBytes } = await this.views.save(stored);
    // A state at version N is the same whoever folded it, so a remembered one is as good as the
    // stored view. If another projector saved further, our save is refused by its version
    // condition and the next fold simply continues from ours.
    this.recent.set(incidentId, { state: stored, bytes: stateBytes });
    if (saved && this.afterSave) await this.afterSave(incidentId, stored, mentions);
    return { incidentId, from, to: state.version, saved };
  }
}
