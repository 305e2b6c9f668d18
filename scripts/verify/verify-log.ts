import type { Checkpoint } from "../../events/transparency/checkpoint.js";
import { parseLeaf } from "../../events/transparency/leaf.js";
import { equalHashes, hashLeaf } from "../../events/transparency/merkle.js";
import type { VerifierKey } from "../../events/transparency/note.js";
import type { Policy } from "../../events/transparency/policy.js";
import {
  decodeEntryBundle,
  decodeHashTile,
  TILE_WIDTH,
  tileNodeReader,
  tileWidth,
} from "../../events/transparency/tiles.js";
import {
  borderNodes,
  checkAgainstRemembered,
  checkSignedCheckpoint,
  IncidentCheck,
  type IncidentHead,
  LeafIndex,
  RootBuilder,
  VerificationError,
} from "./checks.js";
import type { LogSource } from "./source.js";
import type { VerifierState } from "./state.js";

export interface VerifyLogOptions {
  source: LogSource;
  logKey: VerifierKey;
  policy?: Policy;
  /** The last checkpoint this user accepted, if any. */
  state?: VerifierState | null;
  /**
   * Catch up from the state: read only the leaves since its checkpoint and the events of the
   * incidents they touch, starting from the incident heads the state remembers.
   */
  incremental?: boolean;
  /** Progress lines for long logs (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** The verifier's clock, for the new state's `verifiedAt`. */
  now?: () => Date;
}

export interface VerifyLogResult {
  checkpoint: Checkpoint;
  /** Leaves read and checked (all of them, or the new ones when catching up). */
  leaves: number;
  incidents: number;
  events: number;
  /** What to remember for the next run. */
  state: VerifierState;
}

const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

/**
 * A partial tile or bundle, or the full one when the log no longer serves the partial (tlog-tiles
 * lets a log drop partials once the full tile exists; the first `width` entries are the same).
 */
async function orFullTile(width: number, read: (width: number) => Promise<Uint8Array>): Promise<Uint8Array> {
  try {
    return await read(width);
  } catch (e) {
    if (width === TILE_WIDTH) throw e;
    try {
      return await read(TILE_WIDTH);
    } catch {
      throw e;
    }
  }
}

/** Entry bundles fetched ahead of the one being checked. */
const PREFETCH_BUNDLES = 8;
/**
 * Events a page of the feed is asked for: few enough that a page seldom reaches the route's byte
 * budget, so the pages ahead can be asked for where full pages would start (see `verifyLog`).
 */
const FEED_PAGE = 500;
/**
 * Feed pages asked for ahead of the one being checked: against a deployed archive each page is
 * a round trip over the network, and the checking waits on none of them while these are on the way.
 */
const FEED_AHEAD = 3;

/**
 * Leaves read ahead of the events checked, at most: each is held until its event is checked,
 * so this, not the log's size, bounds what a full check holds beside one head an incident.
 */
const LEAVES_AHEAD = 64 * TILE_WIDTH;

/** How far the events' check has come, for the leaves' reading to keep within LEAVES_AHEAD of it. */
class ReadAhead {
  private checked: number;
  private waiting: { through: number; resume: () => void } | null = null;

  constructor(from: number) {
    this.checked = from - 1;
  }

  /** The events are checked through log index `index`. */
  checkedThrough(index: number): void {
    this.checked = index;
    if (this.waiting && this.waiting.through - this.checked <= LEAVES_AHEAD) {
      const { resume } = this.waiting;
      this.waiting = null;
      resume();
    }
  }

  /** The events' check has ended (done or failed): the leaves are read to the end unheld. */
  ended(): void {
    this.checkedThrough(Number.POSITIVE_INFINITY);
  }

  /** Resolves once leaves through log index `through` may be held. */
  room(through: number): Promise<void> {
    if (through - this.checked <= LEAVES_AHEAD) return Promise.resolve();
    return new Promise((resume) => {
      this.waiting = { through, resume };
    });
  }
}

/**
 * Everything `npm run verify -- --url` checks, in order, throwing a VerificationError naming the
 * first thing that does not hold: the checkpoint's signature (and witness quorum), its
 * consistency with the remembered one, the leaves read from the entry bundles recomputing the
 * checkpoint's root, and each incident's served events chaining and matching their leaves.
 */
export async function verifyLog(options: VerifyLogOptions): Promise<VerifyLogResult> {
  const { source, logKey, policy, state } = options;
  const progress = options.progress ?? (() => {});
  const note = await source.checkpoint();
  const cp = checkSignedCheckpoint(note, logKey, policy);
  progress(`checkpoint ${cp.origin} size ${cp.size} root ${b64(cp.root)}: signature verified`);

  if (state) {
    if (state.origin !== cp.origin) {
      throw new VerificationError(`the state file is for log ${state.origin}, not ${cp.origin}`);
    }
    checkStateFile(state, logKey);
    const remembered = { size: state.size, root: new Uint8Array(Buffer.from(state.root, "base64")) };
    const needsProof = state.size > 0 && state.size < cp.size;
    let proof = null;
    try {
      proof = needsProof ? await source.consistency(state.size, cp.size) : null;
    } catch (e) {
      throw new VerificationError(
        `the log gives no consistency proof from the remembered size ${state.size} to ${cp.size} (${(e as Error).message})`,
      );
    }
    checkAgainstRemembered(remembered, cp, proof);
    progress(`consistent with the remembered checkpoint of size ${state.size}`);
  }

  // Catching up starts from what the state vouches for; a full check from the empty tree.
  const resume = options.incremental && state?.heads ? state : null;
  const from = resume?.size ?? 0;
  const leaves = new LeafIndex(new Map(Object.entries(resume?.heads ?? {})));
  // Nothing new since the state: its root was just compared with the checkpoint's.
  const nothingNew = from > 0 && from === cp.size;
  const root =
    from === 0 || nothingNew ? new RootBuilder() : await resumeRoot(source, cp.size, resume as VerifierState);

  // The leaves (from the entry bundles) and the events (from the feed) are read side by side:
  // an event at log index i is checked once leaves 0 … i are in. The leaves' findings come
  // first: a leaf that cannot be read, or leaves that do not recompute the signed root, are
  // reported before anything the events showed.
  const ahead = new ReadAhead(from);
  const reading = readLeaves(source, cp.size, from, nothingNew, leaves, root, ahead, progress);
  const checking = checkEvents(
    source,
    cp.size,
    from,
    nothingNew,
    leaves,
    reading.through,
    ahead,
    progress,
  ).finally(() => ahead.ended());
  // Settled before either is awaited, so neither failure goes unhandled while the other is awaited.
  const events = checking.then(
    (count) => ({ count }),
    (error: unknown) => ({ error }),
  );
  await reading.done;
  const recomputed = nothingNew ? cp.root : root.root();
  if (!equalHashes(recomputed, cp.root)) {
    throw new VerificationError(
      `the ${cp.size} leaves recompute root ${b64(recomputed)}, not the checkpoint's ${b64(cp.root)}`,
    );
  }
  progress(
    from === 0
      ? `all ${cp.size} leaves recompute the checkpoint's root`
      : `the ${cp.size - from} new leaves, after the remembered ${from}, recompute the checkpoint's root`,
  );
  const checked = await events;
  if ("error" in checked) throw checked.error;
  const incidents = leaves.byIncident.size;
  progress(`${incidents} incidents, ${checked.count} events: every chain recomputes and matches the log`);

  const now = options.now ?? (() => new Date());
  const heads: Record<string, IncidentHead> = Object.fromEntries(leaves.headsAfter());
  return {
    checkpoint: cp,
    leaves: cp.size - from,
    incidents,
    events: checked.count,
    state: {
      origin: cp.origin,
      size: cp.size,
      root: b64(cp.root),
      checkpoint: note,
      verifiedAt: now().toISOString(),
      heads,
    },
  };
}

/**
 * A state file's size and root against the signed checkpoint it keeps: only a state that is what
 * this log signed can show the log shrank or forked. An edited one is said to be, not blamed on
 * the log.
 */
function checkStateFile(state: VerifierState, logKey: VerifierKey): void {
  const edited =
    "the state file was edited, or is another log's: verify without --state, or with a copy you trust";
  let remembered: Checkpoint;
  try {
    remembered = checkSignedCheckpoint(state.checkpoint, logKey);
  } catch (e) {
    throw new VerificationError(
      `the state file's checkpoint does not verify with the log's key (${(e as Error).message}): ${edited}`,
    );
  }
  if (remembered.size !== state.size || b64(remembered.root) !== state.root) {
    throw new VerificationError(
      `the state file remembers size ${state.size} and root ${state.root}, but its signed checkpoint says size ${remembered.size} and root ${b64(remembered.root)}: ${edited}`,
    );
  }
}

/**
 * Reads the leaves from `from` on out of the entry bundles, in order, the next few already
 * being fetched while one is checked, into `leaves` and `root`. `through(i)` resolves once
 * leaves 0 … i are in, and rejects once the reading has failed or ended short of them.
 */
function readLeaves(
  source: LogSource,
  size: number,
  from: number,
  nothingNew: boolean,
  leaves: LeafIndex,
  root: RootBuilder,
  window: ReadAhead,
  progress: (line: string) => void,
): { done: Promise<void>; through: (index: number) => Promise<void> } {
  let readTo = from;
  let ended = false;
  let waiting: { index: number; resolve: () => void; reject: (e: Error) => void } | null = null;
  const wake = () => {
    if (!waiting || (waiting.index >= readTo && !ended)) return;
    const { index, resolve, reject } = waiting;
    waiting = null;
    if (index < readTo) resolve();
    else reject(new LeavesEnded());
  };
  const done = (async () => {
    const bundles = nothingNew ? 0 : Math.ceil(size / TILE_WIDTH);
    const first = Math.floor(from / TILE_WIDTH);
    // Bundles are read in order, the next few already being fetched while one is checked.
    const ahead = new Map<number, Promise<Uint8Array | { error: Error }>>();
    const fetchBundle = (n: number) => {
      if (n >= bundles || ahead.has(n)) return;
      const width = tileWidth(0, n, size);
      ahead.set(
        n,
        orFullTile(width, (w) => source.entries({ index: n, width: w })).catch((error: Error) => ({ error })),
      );
    };
    for (let n = first; n < bundles; n++) {
      for (let k = n; k < n + PREFETCH_BUNDLES; k++) fetchBundle(k);
      const width = tileWidth(0, n, size);
      const fetched = await (ahead.get(n) as Promise<Uint8Array | { error: Error }>);
      ahead.delete(n);
      let entries: Uint8Array[];
      try {
        if ("error" in fetched) throw fetched.error;
        entries = decodeEntryBundle(fetched);
      } catch (e) {
        throw new VerificationError(`entry bundle ${n}: ${(e as Error).message}`);
      }
      // A full bundle may be served where the checkpoint only needs its first `width` entries.
      if (entries.length < width)
        throw new VerificationError(`entry bundle ${n} holds ${entries.length} of ${width}`);
      await window.room(n * TILE_WIDTH + width - 1);
      for (const [i, bytes] of entries.slice(0, width).entries()) {
        const index = n * TILE_WIDTH + i;
        if (index < from) continue;
        const leafHash = hashLeaf(bytes);
        try {
          leaves.add(index, parseLeaf(bytes), leafHash);
        } catch (e) {
          if (e instanceof VerificationError) throw e;
          throw new VerificationError(`leaf ${index}: ${(e as Error).message}`);
        }
        root.push(leafHash);
      }
      readTo = n * TILE_WIDTH + width;
      wake();
      if ((n + 1) % 64 === 0) progress(`read ${root.count} of ${size} leaves`);
    }
  })().finally(() => {
    ended = true;
    wake();
  });
  const through = (index: number) =>
    index < readTo
      ? Promise.resolve()
      : ended
        ? Promise.reject(new LeavesEnded())
        : new Promise<void>((resolve, reject) => {
            waiting = { index, resolve, reject };
          });
  return { done, through };
}

/** The leaves' reading stopped (it failed, and says why): the events' check stops with it. */
class LeavesEnded extends Error {}

/**
 * Checks the events the feed serves from `from` on, in log order, the next pages already being
 * asked for while one is checked: each must be the one its leaf holds, and each incident's chain
 * recompute. Returns how many were checked.
 */
async function checkEvents(
  source: LogSource,
  size: number,
  from: number,
  nothingNew: boolean,
  leaves: LeafIndex,
  leavesThrough: (index: number) => Promise<void>,
  ahead: ReadAhead,
  progress: (line: string) => void,
): Promise<number> {
  const checks = new Map<string, IncidentCheck>();
  const checkOf = (incidentId: string): IncidentCheck | undefined => {
    let check = checks.get(incidentId);
    const entry = leaves.byIncident.get(incidentId);
    if (!check && entry) {
      check = new IncidentCheck(incidentId, entry.logged, entry.head);
      checks.set(incidentId, check);
    }
    return check;
  };
  const page = (after: number) =>
    source.feed(after, FEED_PAGE).then(
      (answer) => ({ answer }),
      (error: Error) => ({ error }),
    );
  // Pages ahead are asked for where they would start if every page before them came back full;
  // when one comes back short, those are dropped and asked for again from where it ended. Only
  // a page asked for from the `next` its predecessor gave is ever checked.
  const pagesAhead: { after: number; fetched: ReturnType<typeof page> }[] = [];
  const askAhead = (after: number) => {
    if (pagesAhead[0] && pagesAhead[0].after !== after) pagesAhead.length = 0;
    while (pagesAhead.length < FEED_AHEAD) {
      const at = pagesAhead.length === 0 ? after : (pagesAhead.at(-1) as { after: number }).after + FEED_PAGE;
      if (at + 1 >= size) break;
      pagesAhead.push({ after: at, fetched: page(at) });
    }
  };
  let events = 0;
  let after: number | null = nothingNew ? null : from - 1;
  while (after !== null) {
    askAhead(after);
    const asked = pagesAhead.shift();
    if (!asked) break;
    const fetched = await asked.fetched;
    if ("error" in fetched) throw new VerificationError(`the feed cannot be read (${fetched.error.message})`);
    const { items, next } = fetched.answer;
    const last = items.at(-1)?.index ?? size;
    after = next !== null && last + 1 < size ? next : null;
    for (const { index, event } of items) {
      if (index >= size) break;
      await leavesThrough(index);
      const check = checkOf(event.incidentId);
      if (!check) {
        throw new VerificationError(
          `the feed serves at log index ${index} an event of incident ${event.incidentId}, which no new leaf names`,
        );
      }
      check.event(event, index);
      // Every leaf up to this index is in: an event whose leaf is not among them is served
      // before its place in the log (or has none), and leaf `index` holds another event.
      if (!check.logs(event.version)) {
        throw new VerificationError(
          `incident ${event.incidentId} version ${event.version}: served at log index ${index}, but leaf ${index} holds another event and none before it holds this one`,
        );
      }
      events += 1;
      ahead.checkedThrough(index);
    }
    if (items.length === 0) break;
    if (Math.floor(last / 50_000) !== Math.floor((last - items.length) / 50_000))
      progress(`checked ${events} of ${size - from} events`);
  }
  // Every leaf must be in before an incident is found short: a feed that ended early is seen
  // against all of the log, not the part read so far.
  if (!nothingNew && size > from) await leavesThrough(size - 1);
  for (const incidentId of leaves.byIncident.keys()) checkOf(incidentId)?.end();
  return events;
}

/**
 * The remembered tree's border subtrees, read from the hash tiles and accepted only if they
 * fold to the remembered root: the new leaves then extend exactly the tree the user verified.
 */
async function resumeRoot(source: LogSource, size: number, state: VerifierState): Promise<RootBuilder> {
  const node = tileNodeReader(size, async (ref) => {
    const hashes = decodeHashTile(await orFullTile(ref.width, (w) => source.tile({ ...ref, width: w })));
    if (hashes.length < ref.width)
      throw new Error(`tile ${ref.level}/${ref.index} holds ${hashes.length} of ${ref.width}`);
    return hashes.slice(0, ref.width);
  });
  let hashes: Uint8Array[];
  try {
    hashes = await Promise.all(borderNodes(state.size).map((n) => node(n.level, n.index)));
  } catch (e) {
    throw new VerificationError(`hash tiles: ${(e as Error).message}`);
  }
  const builder = RootBuilder.resume(state.size, hashes);
  if (b64(builder.root()) !== state.root) {
    throw new VerificationError(`the hash tiles do not give the remembered root at size ${state.size}`);
  }
  return builder;
}
