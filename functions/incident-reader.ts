import type { AttributionRow, LinkRow } from "../events/editorial.js";
import { type IncomingLink, withIncoming } from "../events/links.js";
import type { Grade } from "../events/schemas.js";
import { piecesNeeded } from "../events/spill.js";
import {
  effectiveGrade,
  type IncidentLists,
  incidentLists,
  retractedIds,
  type Summary,
  summarize,
} from "../events/summarize.js";
import type { IncidentState } from "../events/summary.js";
import { BoundedLru } from "./bounded-lru.js";
import { type EditorialIndex, incomingOfItem, linksInKey } from "./editorial/editorial-index.js";
import { foldWithStore } from "./history-fold.js";
import type { EventStore } from "./store/event-store.js";
import {
  type ListPage,
  type ListQuery,
  SNAPSHOT_EVERY,
  type StoredSummary,
  type ViewStore,
} from "./store/view-store.js";

export type SummaryQuery =
  | { at: "current"; minVersion?: number }
  | { at: "version"; version: number }
  | { at: "asOf"; asOf: string };

/**
 * Answers summary reads. The current view is one GetItem; a past view starts from the snapshot
 * below it and read-your-write from the view, both folding with the projector's own fold, so
 * the answers agree.
 */
/**
 * Where views are projected in the same process (locally), a read can wait for the projection
 * of writes already acknowledged, so a client reads what it just wrote. In AWS there is nothing
 * to wait for here: the view is eventually consistent, and `minVersion` is the way to ask.
 */
type PastQuery = Exclude<SummaryQuery, { at: "current" }>;

/** The projections still under way in this process, which a read waits for first. */
export interface PendingProjections {
  /** Resolves once every commit of this incident published so far is projected. */
  of(incidentId: string): Promise<void>;
  /** Resolves once every commit published so far is projected. */
  all(): Promise<void>;
}

/** Index pages one listing request with `grade` reads at most. */
export const GRADE_PAGES = 5;

const NOTHING_TO_WAIT_FOR: PendingProjections = { of: async () => {}, all: async () => {} };

/** Characters of assembled summaries an IncidentReader keeps (see `assembled`). */
const ASSEMBLED_CHARS = 16_000_000;

export class IncidentReader {
  /**
   * Snapshots read lately. A snapshot never changes (the state at version N is the same for
   * whoever folds it), so a past view near one read before skips its read: it then costs one
   * bounded Query of the events after it, as a past view of a short incident does.
   */
  private readonly snapshots = new BoundedLru<string, IncidentState>(64);

  /**
   * Summaries assembled for views that store none (a list spilled into pieces), as JSON text by
   * `incidentId@version`. Assembling one reads the packed state and the pieces its lists need
   * and summarizes them: the cost of a long incident's lists, on every read of it and on every
   * listing page that shows it. The summary at a version never changes, so it is assembled
   * once a version while it stays here. Weighed in characters.
   */
  private readonly assembled = new BoundedLru<string, string>(ASSEMBLED_CHARS, (_key, json) => json.length);

  constructor(
    private readonly events: EventStore,
    private readonly views: ViewStore,
    private readonly pending: PendingProjections = NOTHING_TO_WAIT_FOR,
    /** Links other incidents posted naming one, and the rows states keep only the latest of (functions/editorial); none without it. */
    private readonly editorial?: EditorialIndex,
  ) {}

  /**
   * A page of the listing. With `grade`, the index pages are read and filtered here (at most
   * GRADE_PAGES of them, each no longer than the matches still wanted, so no match is skipped):
   * a bounded cost per request, and a page may come back short with a cursor.
   */
  async list(
    query: ListQuery,
    filter: { grade?: Grade } = {},
  ): Promise<{ items: Summary[]; next: ListPage["next"] }> {
    const { grade } = filter;
    if (grade === undefined) return this.listPage(query);
    const items: Summary[] = [];
    let next: ListPage["next"] = query.cursor ?? null;
    for (let round = 0; round < GRADE_PAGES; round++) {
      const page = await this.listPage({
        ...query,
        limit: query.limit - items.length,
        ...(next ? { cursor: next } : {}),
      });
      items.push(...page.items.filter((s) => effectiveGrade(s) === grade));
      next = page.next;
      if (!next || items.length >= query.limit) break;
    }
    return { items, next };
  }

  private async listPage(query: ListQuery): Promise<{ items: Summary[]; next: ListPage["next"] }> {
    await this.pending.all();
    const page = await this.views.list(query);
    const ids = page.items.map((item) => ("unprojected" in item ? item.unprojected : item.incidentId));
    const [items, incoming] = await Promise.all([
      Promise.all(
        page.items.map(async (item) => {
          if (!("unprojected" in item)) return item;
          const view = { version: item.version, json: null };
          const found = await this.currentJson(item.unprojected, view);
          return found ? (JSON.parse(found.json) as Summary) : null;
        }),
      ),
      this.editorial?.incomingMany(ids) ?? new Map<string, IncomingLink[]>(),
    ]);
    return {
      items: items
        .filter((s): s is Summary => s !== null)
        .map((s) => withIncoming(s, incoming.get(s.incidentId) ?? [])),
      next: page.next,
    };
  }

  /** Resolves once the projections of the writes before this call are done (locally; at once in AWS). */
  projected(): Promise<void> {
    return this.pending.all();
  }

  /** This incident's own current links as the index keeps them all (null: none recorded, or no index). */
  async outgoingLinks(incidentId: string): Promise<LinkRow[] | null> {
    return (await this.editorial?.outgoing(incidentId)) ?? null;
  }

  /** The links posted on other incidents naming this one (none where no index is kept). */
  async incomingLinks(incidentId: string): Promise<IncomingLink[]> {
    return (await this.editorial?.incoming(incidentId)) ?? [];
  }

  /** This incident's current attributions as the index keeps them all (null: none recorded, or no index). */
  async attributions(incidentId: string): Promise<AttributionRow[] | null> {
    return (await this.editorial?.attributions(incidentId)) ?? null;
  }

  /** null: there is no such incident, or it had not reached that point. */
  async summary(incidentId: string, query: SummaryQuery): Promise<Summary | null> {
    if (query.at === "current") {
      const { stored, incoming } = await this.currentWithLinks(incidentId, query.minVersion);
      const found = await this.currentJson(incidentId, stored, query.minVersion);
      const own = found ? (JSON.parse(found.json) as Summary) : null;
      return own ? withIncoming(own, incoming, untilOf(own, query)) : null;
    }
    const [found, incoming] = await Promise.all([
      this.folded(incidentId, query),
      this.incomingLinks(incidentId),
    ]);
    return found ? withIncoming(found, incoming, untilOf(found, query)) : null;
  }

  /** The summary without the links other incidents posted (what the exports read: a function of the tree size alone). */
  async ownSummary(incidentId: string, query: SummaryQuery): Promise<Summary | null> {
    if (query.at !== "current") return this.folded(incidentId, query);
    const stored = await this.storedView(incidentId, query.minVersion);
    const found = await this.currentJson(incidentId, stored, query.minVersion);
    return found ? (JSON.parse(found.json) as Summary) : null;
  }

  /**
   * The same answer as JSON text, for the API: a current view goes out as the stored text,
   * without a parse and a stringify on the hottest read.
   */
  async summaryJson(
    incidentId: string,
    query: SummaryQuery,
  ): Promise<{ version: number; json: string } | null> {
    // The other incidents' links are read beside the view: with none, the stored text goes out as it is.
    const { stored, incoming } =
      query.at === "current"
        ? await this.currentWithLinks(incidentId, query.minVersion)
        : { stored: null, incoming: await this.incomingLinks(incidentId) };
    let own: Summary | null;
    if (query.at === "current") {
      const found = await this.currentJson(incidentId, stored, query.minVersion);
      if (!found || incoming.length === 0) return found;
      own = JSON.parse(found.json) as Summary;
    } else own = await this.folded(incidentId, query);
    if (!own) return null;
    const summary = withIncoming(own, incoming, untilOf(own, query));
    return { version: summary.version, json: JSON.stringify(summary) };
  }

  /** The projected view (if it is at least `minVersion`) and the links other incidents posted, in one read. */
  private async currentWithLinks(
    incidentId: string,
    minVersion = 0,
  ): Promise<{ stored: StoredSummary | null; incoming: IncomingLink[] }> {
    if (!this.editorial) return { stored: await this.storedView(incidentId, minVersion), incoming: [] };
    await this.pending.of(incidentId);
    const { view, beside } = await this.views.getSummaryJsonBeside(incidentId, linksInKey(incidentId));
    return { stored: view && view.version >= minVersion ? view : null, incoming: incomingOfItem(beside) };
  }

  /** The projected view, if it is at least `minVersion`. */
  private async storedView(incidentId: string, minVersion = 0) {
    await this.pending.of(incidentId);
    const view = await this.views.getSummaryJson(incidentId);
    return view && view.version >= minVersion ? view : null;
  }

  /**
   * The current summary's JSON text, without the links other incidents posted: the view's own
   * text; for a view that stores none (a list spilled into pieces), the summary assembled at
   * its version, once per version (`assembled`); with no view at `minVersion`, folded from the
   * events.
   */
  private async currentJson(
    incidentId: string,
    stored: StoredSummary | null,
    minVersion = 0,
  ): Promise<{ version: number; json: string } | null> {
    if (stored?.json) return { version: stored.version, json: stored.json };
    const known = stored ? this.assembled.get(`${incidentId}@${stored.version}`) : undefined;
    if (stored && known !== undefined) return { version: stored.version, json: known };
    const summary = await this.caughtUpSummary(incidentId, minVersion);
    if (!summary) return null;
    const json = JSON.stringify(summary);
    // Kept for a view that stores no summary; a lagging view's is saved by the projector.
    if (stored) this.assembled.set(`${incidentId}@${summary.version}`, json);
    return { version: summary.version, json };
  }

  /** The view lags (or was never written): fold the store's events after it. */
  private async caughtUpSummary(incidentId: string, minVersion = 0): Promise<Summary | null> {
    const state = await this.caughtUp(incidentId);
    return state.version === 0 || state.version < minVersion ? null : this.summarize(state);
  }

  /**
   * The fold state of the stored view as the projector saved it, without catching up with the
   * store: the state the current summary was made from (read beside it where the summary is).
   */
  async projectedState(incidentId: string): Promise<IncidentState | null> {
    return this.views.getState(incidentId);
  }

  /**
   * The summary of a state: as it is when nothing spilled; else with the sealed pieces of its
   * spilled lists, read in one batch (events/spill.ts) — the cost of what the summary lists.
   */
  async summarize(state: IncidentState): Promise<Summary> {
    const wanted = piecesNeeded(state.spilled, state.unsaved);
    return summarize(state, wanted.length > 0 ? await this.views.getPieces(state.incidentId, wanted) : []);
  }

  /** Every retracted id of the state (the summary lists only the latest), with the pieces it needs. */
  async retracted(state: IncidentState): Promise<string[]> {
    const wanted = piecesNeeded(state.spilled, state.unsaved).filter((p) => p.log === "retracted");
    return retractedIds(state, wanted.length > 0 ? await this.views.getPieces(state.incidentId, wanted) : []);
  }

  /** The state's lists whole (what the summary bounds), with the sealed pieces they need. */
  async lists(state: IncidentState): Promise<IncidentLists> {
    const wanted = piecesNeeded(state.spilled, state.unsaved);
    return incidentLists(
      state,
      wanted.length > 0 ? await this.views.getPieces(state.incidentId, wanted) : [],
    );
  }

  private async folded(incidentId: string, query: PastQuery): Promise<Summary | null> {
    const state = await this.stateAt(incidentId, query);
    return state ? this.summarize(state) : null;
  }

  /**
   * The fold state as it stood at a past point, or now (caught up with the store): what the
   * incident page draws. A past point costs a snapshot read and a fold of at most
   * SNAPSHOT_EVERY events, plus, for `asOf`, a binary search over versions (log of the length).
   */
  async stateAt(incidentId: string, query: SummaryQuery): Promise<IncidentState | null> {
    if (query.at === "current") {
      await this.pending.of(incidentId);
      const state = await this.caughtUp(incidentId);
      return state.version === 0 || state.version < (query.minVersion ?? 0) ? null : state;
    }
    const version = query.at === "version" ? query.version : await this.versionAt(incidentId, query.asOf);
    if (version < 1) return null;
    const base = Math.floor(version / SNAPSHOT_EVERY) * SNAPSHOT_EVERY;
    // The snapshot and the events after it, read at once: neither read waits for the other.
    const [snapshot, after] = await Promise.all([
      base > 0 ? this.snapshot(incidentId, base) : null,
      this.events.eventsBetween(incidentId, base, version),
    ]);
    // No snapshot (not projected that far yet, or never written): fold from the start.
    const from = snapshot?.version === base ? snapshot : undefined;
    const events = from || base === 0 ? after : await this.events.eventsBetween(incidentId, 0, version);
    const state = await foldWithStore(this.events, incidentId, events, { from, pieces: this.views });
    return state.version === version ? state : null;
  }

  private async snapshot(incidentId: string, version: number): Promise<IncidentState | null> {
    const key = `${incidentId}#${version}`;
    const known = this.snapshots.get(key);
    if (known) return known;
    const read = await this.views.getSnapshot(incidentId, version);
    if (read) this.snapshots.set(key, read);
    return read;
  }

  /** The last version recorded at or before `asOf` (recordedAt never goes back): a binary search. */
  private async versionAt(incidentId: string, asOf: string): Promise<number> {
    const head = await this.events.readHead(incidentId);
    if (head.version === 0) return 0;
    if (head.recordedAt !== null && head.recordedAt <= asOf) return head.version;
    let lo = 0;
    let hi = head.version;
    // Invariant: version lo was recorded by asOf (0: nothing), version hi was not.
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const event = await this.events.eventAt(incidentId, mid);
      if (event && event.recordedAt <= asOf) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** Catch-ups in flight, by incident: readers arriving meanwhile share one read and fold. */
  private readonly catchingUp = new Map<string, Promise<IncidentState>>();

  /**
   * The view caught up with the store. Concurrent readers of one incident share one catch-up:
   * the state of a large incident is megabytes to copy and fold, and eight readers of a page
   * just after a write must not do it eight times over. The state is read-only to callers.
   */
  private async caughtUp(incidentId: string): Promise<IncidentState> {
    // Keyed by the head too: a reader after a write (which moves the head) never shares an
    // older catch-up, so it reads what it wrote.
    const head = await this.events.readHead(incidentId);
    const key = `${incidentId}#${head.version}`;
    const running = this.catchingUp.get(key);
    if (running) return running;
    const started = this.catchUp(incidentId, head.version).finally(() => this.catchingUp.delete(key));
    this.catchingUp.set(key, started);
    return started;
  }

  private async catchUp(incidentId: string, headVersion: number): Promise<IncidentState> {
    const view = await this.views.getState(incidentId);
    // Nothing missed: the view as it is.
    if (view && view.version >= headVersion) return view;
    const missed = this.events.events(incidentId, { after: view?.version ?? 0, afterEndsCommit: true });
    // The view was read for this fold alone: folded in place.
    return foldWithStore(this.events, incidentId, missed, { onto: view ?? undefined, pieces: this.views });
  }
}

/** A past view shows the links recorded by its point: `asOf`, or the time of its version. */
function untilOf(summary: Summary, query: SummaryQuery): string | undefined {
  if (query.at === "asOf") return query.asOf;
  if (query.at === "version") return summary.lastRecordedAt ?? undefined;
  return undefined;
}
