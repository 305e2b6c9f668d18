import type { ChainStart } from "../../events/stored-event.js";
import { BoundedLru } from "../bounded-lru.js";
import type { Logger } from "../logger.js";
import { commitsContinuing } from "../store/carried-commits.js";
import type { Commit } from "../store/commit-item.js";
import type { ReadFrom } from "../store/commit-reader.js";
import { eachLimited } from "../store/dynamo-idioms.js";
import type { LeafRecord, LeafRun, LogStore, SequencedVersions } from "./log-store.js";
import { RUN_WIDTH } from "./log-store.js";
import type { LogTiles } from "./log-tiles.js";

/** What the sequencer reads of the events table. */
export interface SequencerEvents {
  commits(incidentId: string, from?: ReadFrom): AsyncGenerator<Commit>;
  /** Every incident (locally a scan of the events table; see `allIncidents`). */
  incidentVersions(): Promise<Map<string, number>>;
}

export interface SequencerOptions {
  store: LogStore;
  tiles: LogTiles;
  events: SequencerEvents;
  log: Logger;
  /** Incidents read at once while gathering what is pending. */
  concurrency?: number;
  /** Passes tried when other sequencers keep taking the slot (default 50). */
  maxRounds?: number;
  /**
   * Incidents whose sequenced version and last leaf it keeps between passes (default 10,000):
   * a pass reads any other's from the log, so what it keeps does not grow with the archive.
   */
  rememberedIncidents?: number;
  /**
   * Every incident's id, for a catch-up over the whole archive. Default: the events table's
   * heads (a scan). In AWS, where no role may scan, the incidents with recent commits are read
   * instead (incident-lister.ts).
   */
  allIncidents?: () => Promise<Iterable<string>>;
}

export interface SequencerResult {
  /** The log's size once this pass settled it. */
  size: number;
  /** Leaves this pass wrote (others may have written more). */
  added: number;
}

interface Pending extends LeafRecord {
  recordedAt: string;
}

/**
 * Gives every stored event one leaf index, with single-item conditional writes only.
 *
 * Storage (see log-store.ts): leaves live in *runs* keyed by their first index, put only if
 * absent; `seq#<incident>` records say which versions of an incident a run holds; the
 * sequencer item's `size` says up to where every run's `seq#` records and full tiles are known
 * to be stored.
 *
 * A pass: (1) settle — read the runs from the settled size on (only what came after the last
 * completed pass), write their `seq#` records and full tiles (if absent), advance the settled
 * size to the log's end E; (2) for each incident, read how far it is sequenced and the stored
 * events after that; (3) order them (recordedAt, incidentId, version) and put them as runs at
 * E, E+…; (4) after each run, its `seq#` records and the tiles it filled (that size may now be
 * signed); (5) advance the settled size — when a tile fills, else at the end of a `pass` or of
 * a local burst (`flushSettledSize`).
 *
 * Why this is safe:
 * - Gapless, never reordered: a run is only put at the end of the log as just read, with
 *   `attribute_not_exists`, so no index is written twice and none is skipped; runs are never
 *   updated, so a leaf a checkpoint covers never moves.
 * - Never doubled: an event is put at index i only by a sequencer that, before reading the
 *   incident's `seq#` records, had itself ensured the `seq#` records of every run below the end
 *   it read (E ≤ i). So the event is in no leaf below E; and nothing lies between E and i but
 *   this sequencer's own runs, which it took the event from. If another sequencer took the
 *   slot at E first, the put fails and the pass starts over from (1), which reads that run.
 * - Versions in order: an incident's pending versions are all those after its sequenced
 *   version, in version order; the sort keeps them so (recordedAt never decreases with version).
 * - Crash anywhere: a run without its `seq#` records or tiles lies at or past the settled size
 *   (which only advances after them), so the next pass's step (1) finds and completes it. Every
 *   write is put-if-absent of content fixed by the leaves, so a repeat writes the same or nothing.
 * - A pass that follows this sequencer's own completed pass skips step (1) and the reads of
 *   step (2) it already knows (see `known`): the first put tells whether anyone wrote since.
 * - Same log after a crash: the pending events are sorted the same way whenever they are read,
 *   so a restarted pass appends exactly the rest of what the dead one would have appended.
 */
export class Sequencer {
  private readonly store: LogStore;
  private readonly tiles: LogTiles;
  private readonly events: SequencerEvents;
  private readonly log: Logger;
  private readonly concurrency: number;
  private readonly maxRounds: number;
  private readonly allIncidents: (() => Promise<Iterable<string>>) | undefined;
  /**
   * After a pass that completed: the log's end it left and how far it knows the incidents it
   * met lately to be sequenced. The next pass starts from there without re-reading them (and
   * reads the others from the log's records, as a first pass does): if any other sequencer (or a
   * crashed one) wrote since, the slot at `end` is taken, the put fails, and the pass starts
   * over from a full settle — so this saves reads and never changes what is written.
   */
  private known: { end: number; upTo: BoundedLru<string, number> } | null = null;
  /**
   * What the last read of pending events found: how many, and the oldest one's recordedAt (null
   * when none). For the health metrics (log-metrics.ts), including after a pass that failed.
   */
  lastPending: { count: number; oldest: string | null } = { count: 0, oldest: null };
  /** The last leaf this sequencer put per incident (version and hash): where carried commits must start. */
  private readonly lastLeaf: BoundedLru<string, ChainStart>;
  private readonly remembered: number;
  /**
   * A log end below which this sequencer stored every run's records and full tiles, not yet
   * written as the settled size (see `flushSettledSize`). The stored size may lag it: a pass
   * that starts from the stored one settles those runs again, writing what is already there.
   */
  private unsettled: number | null = null;

  constructor(options: SequencerOptions) {
    this.store = options.store;
    this.tiles = options.tiles;
    this.events = options.events;
    this.log = options.log;
    // Reads of pending commits wait mostly on the store, not the CPU: a burst's 16 incidents in
    // one round trip rather than two.
    this.concurrency = options.concurrency ?? 16;
    this.maxRounds = options.maxRounds ?? 50;
    this.allIncidents = options.allIncidents;
    this.remembered = options.rememberedIncidents ?? 10_000;
    this.lastLeaf = new BoundedLru(this.remembered);
  }

  /**
   * Sequences whatever is stored and not yet in the log for these incidents. `onProgress` is
   * told the log's end after each run whose records and full tiles are stored: a size that may
   * be signed at once, before the pass ends (so a long pass still publishes as it goes).
   * `carried`: commits of these incidents at hand, in order (see the class comment).
   */
  async sequence(
    incidentIds: Iterable<string>,
    onProgress?: (size: number) => void,
    carried?: ReadonlyMap<string, readonly Commit[]>,
  ): Promise<SequencerResult> {
    const ids = [...new Set(incidentIds)].sort();
    let added = 0;
    try {
      for (let round = 0; round < this.maxRounds; round++) {
        // What this sequencer's own last pass left, if it completed: see `known`.
        const known = this.known ?? {
          end: await this.settle(),
          upTo: new BoundedLru<string, number>(this.remembered),
        };
        this.known = null;
        const start = known.end;
        let end = start;
        const pending = await this.pendingOf(ids, known.upTo, carried);
        let lost = false;
        for (const run of toRuns(end, pending)) {
          if (!(await this.store.putRun(run))) {
            lost = true;
            break;
          }
          added += run.leaves.length;
          end = run.start + run.leaves.length;
          // The run is this sequencer's: its leaves extend the partial tiles kept in memory, so
          // signing it reads nothing back.
          this.tiles.noteRun(run);
          const records = sequencedRecords(run);
          // Records, and any tile the run filled, before the run's leaves may be signed: a
          // checkpoint over them is then served whole (proofs, tiles, bundles).
          await Promise.all([this.store.putSequenced(records), this.tiles.storeFullTiles(run.start, end)]);
          for (const r of records) known.upTo.set(r.incidentId, r.first + r.indexes.length - 1);
          for (const leaf of run.leaves)
            this.lastLeaf.set(leaf.incidentId, { version: leaf.version, hash: leaf.hash });
          onProgress?.(end);
        }
        if (lost) {
          this.log.debug("another sequencer took the log's next slot; starting over", { end });
          continue;
        }
        // Every run in [start, end) is this pass's own, its records and full tiles stored: what
        // settling them would do is left, the settled size. Written when a tile fills (so a
        // restart re-settles at most one tile's runs, each write a repeat of the same bytes) or
        // by `flushSettledSize` (at the end of a `pass`, or of a burst locally): not a write
        // every pass while commits stream in.
        if (end > start) {
          this.unsettled = end;
          if (Math.floor(end / RUN_WIDTH) > Math.floor(start / RUN_WIDTH)) await this.flushSettledSize();
        }
        this.known = { end, upTo: known.upTo };
        return { size: end, added };
      }
    } catch (error) {
      this.known = null;
      throw error;
    }
    throw new Error(`the sequencer lost the race for the log's end ${this.maxRounds} times in a row`);
  }

  /** Records the settled size this sequencer's passes reached (one write; none if it is recorded). */
  async flushSettledSize(): Promise<void> {
    const size = this.unsettled;
    if (size === null) return;
    await this.store.advanceSettledSize(size);
    if (this.unsettled === size) this.unsettled = null;
  }

  /** Sequences every incident of the archive (catch-up at start, or on a schedule). */
  async sequenceAll(onProgress?: (size: number) => void): Promise<SequencerResult> {
    if (this.allIncidents) return this.sequence(await this.allIncidents(), onProgress);
    // The heads are read after the log's end is: the log holds only stored events, each once,
    // so a log as long as the heads add up to holds every event stored before it was read. A
    // start after a clean stop then reads nothing per incident (two reads each, otherwise).
    const end = await this.settle();
    const heads = await this.events.incidentVersions();
    let stored = 0;
    for (const version of heads.values()) stored += version;
    if (stored === end) return { size: end, added: 0 };
    return this.sequence(heads.keys(), onProgress);
  }

  /**
   * Completes the bookkeeping of every run past the settled size and returns the log's end.
   * Reads only the runs written since the last completed pass.
   */
  async settle(): Promise<number> {
    const settled = await this.store.settledSize();
    let end = settled;
    for await (const run of this.store.runsBetween(settled)) {
      if (run.start !== end) throw new Error(`the log has a gap: a run starts at ${run.start}, not ${end}`);
      await this.store.putSequenced(sequencedRecords(run));
      end = run.start + run.leaves.length;
    }
    if (end > settled) {
      await this.tiles.storeFullTiles(settled, end);
      await this.store.advanceSettledSize(end);
    }
    return end;
  }

  /** Stored events not yet in the log, in the order they will take there. */
  private async pendingOf(
    ids: readonly string[],
    upToKnown: BoundedLru<string, number>,
    carried?: ReadonlyMap<string, readonly Commit[]>,
  ): Promise<Pending[]> {
    const pending: Pending[] = [];
    await eachLimited(ids, this.concurrency, async (incidentId) => {
      const upTo = upToKnown.get(incidentId) ?? (await this.store.sequencedUpTo(incidentId));
      upToKnown.set(incidentId, upTo);
      // The order's time never goes back within an incident, even if a stored recordedAt did:
      // so sorting can never put version v + 1 before v.
      let time = "";
      for await (const commit of this.commitsAfter(incidentId, upTo, carried?.get(incidentId))) {
        for (const event of commit.events) {
          if (event.version <= upTo) continue;
          if (event.recordedAt > time) time = event.recordedAt;
          pending.push({
            index: -1,
            incidentId,
            version: event.version,
            eventId: event.eventId,
            hash: event.hash,
            commit: commit.version,
            recordedAt: time,
          });
        }
      }
    });
    pending.sort(logOrder);
    this.lastPending = { count: pending.length, oldest: pending[0]?.recordedAt ?? null };
    return pending;
  }

  /** The incident's commits after `upTo`: those carried when they continue our own last leaf there, else the store's. */
  private commitsAfter(
    incidentId: string,
    upTo: number,
    carried: readonly Commit[] | undefined,
  ): Iterable<Commit> | AsyncIterable<Commit> {
    const last = this.lastLeaf.get(incidentId);
    const continuing =
      carried && last?.version === upTo ? commitsContinuing(incidentId, last, carried) : null;
    return continuing ?? this.events.commits(incidentId, { after: upTo });
  }
}

function logOrder(a: Pending, b: Pending): number {
  if (a.recordedAt !== b.recordedAt) return a.recordedAt < b.recordedAt ? -1 : 1;
  if (a.incidentId !== b.incidentId) return a.incidentId < b.incidentId ? -1 : 1;
  return a.version - b.version;
}

/** Cuts the pending events into runs from `end` on, none crossing a multiple of RUN_WIDTH. */
function toRuns(end: number, pending: readonly Pending[]): LeafRun[] {
  const runs: LeafRun[] = [];
  let at = 0;
  let index = end;
  while (at < pending.length) {
    const room = RUN_WIDTH - (index % RUN_WIDTH);
    const slice = pending.slice(at, at + room);
    runs.push({
      start: index,
      leaves: slice.map((p, i) => ({
        index: index + i,
        incidentId: p.incidentId,
        version: p.version,
        eventId: p.eventId,
        hash: p.hash,
        commit: p.commit,
      })),
    });
    at += slice.length;
    index += slice.length;
  }
  return runs;
}

/** Where a run put each incident's versions (consecutive versions of one incident per record). */
function sequencedRecords(run: LeafRun): SequencedVersions[] {
  const byIncident = new Map<string, SequencedVersions>();
  for (const leaf of run.leaves) {
    const record = byIncident.get(leaf.incidentId);
    if (!record)
      byIncident.set(leaf.incidentId, {
        incidentId: leaf.incidentId,
        first: leaf.version,
        indexes: [leaf.index],
      });
    else record.indexes.push(leaf.index);
  }
  return [...byIncident.values()];
}
