import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { LedgerError } from "../errors.js";
import type { Item } from "../store/commit-item.js";
import { batchGetItems } from "../store/dynamo-idioms.js";
import { EVENTS_KEYS } from "../store/table-design.js";
import type { LeafRecord, LogReader } from "./log-reader.js";

/** A leaf's event as stored: its JSON text (what the hash covers), never parsed and written again. */
export interface FeedEntry {
  index: number;
  eventJson: string;
}

/**
 * Leaves read at a time, at most: few large BatchGetItems rather than many small ones (each
 * request costs the store as much as its items do).
 */
export const FEED_CHUNK = 500;

/**
 * Distinct commits a chunk names, at most (one BatchGetItem's worth). It bounds memory: at
 * most three times this many commit items, each under 400 KB, are held (the chunk handed out,
 * the next one read, and the one after it, whose read has begun beside it), however the leaves
 * interleave.
 */
export const FEED_COMMITS = 100;

/** Characters of JSON lines handed out at a time by `lines`. */
const LINES_PIECE = 64 * 1024;

/**
 * A leaf whose event the events table no longer holds: the archive lost or had removed a logged
 * event. Said as what it is (which leaf, which event), never as a passing server error.
 */
export class MissingCommitError extends LedgerError {
  readonly slug = "logged-event-missing";
  readonly status = 500;
  readonly title = "An event in the log is not held";
  constructor(readonly leaf: LeafRecord) {
    super(
      `log leaf ${leaf.index} names ${leaf.incidentId} v${leaf.version} in commit ${leaf.commit}, which the events table does not hold`,
      undefined,
      { leaf: leaf.index, incidentId: leaf.incidentId, version: leaf.version },
    );
  }
}

const keyOf = (incidentId: string, commit: number) => `${incidentId}@${commit}`;

/** A chunk whose read is under way: the commits it names (keyOf), and the read. */
interface ReadChunk {
  keys: ReadonlySet<string>;
  read: Promise<ResolvedChunk>;
}

/** A chunk of leaves and the commit items they name, by keyOf. */
interface ResolvedChunk {
  leaves: LeafRecord[];
  commits: Map<string, Item>;
}

/** The stored JSON text of the leaf's event in its commit item, or undefined where the item does not hold it. */
function eventText(leaf: LeafRecord, item: Item | undefined): string | undefined {
  const first = Number(item?.version?.N);
  const last = Number(item?.lastVersion?.N);
  const events = item?.events?.L;
  if (!events || events.length !== last - first + 1 || leaf.version < first || leaf.version > last) return;
  return events[leaf.version - first]?.S;
}

/**
 * The stored events behind the log's leaves, in log order. Each leaf names the commit item that
 * holds its event; a chunk of leaves is served by BatchGetItem of the distinct commits it names
 * (never one read per event), the next chunk's read under way while this one is handed out,
 * and a commit that spans two chunks is read once.
 */
export class FeedReader {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly eventsTable: string,
    private readonly log: LogReader,
  ) {}

  async *entries(from: number, to: number): AsyncGenerator<FeedEntry> {
    for await (const { leaves, commits } of this.chunks(from, to)) {
      for (const leaf of leaves) {
        const eventJson = eventText(leaf, commits.get(keyOf(leaf.incidentId, leaf.commit)));
        if (eventJson === undefined) throw new MissingCommitError(leaf);
        yield { index: leaf.index, eventJson };
      }
    }
  }

  /**
   * The same events as JSON lines, pieces of lines at a time, each line ending in a newline: the exports write it without a parse
   * and a stringify of every event.
   */
  async *lines(from: number, to: number): AsyncGenerator<string> {
    for await (const { leaves, commits } of this.chunks(from, to)) {
      let text = "";
      for (const leaf of leaves) {
        const line = eventText(leaf, commits.get(keyOf(leaf.incidentId, leaf.commit)));
        if (line === undefined) throw new MissingCommitError(leaf);
        text += `${line}\n`;
        // Handed out in pieces, so that a reader that stops reading stops the chunk too.
        if (text.length >= LINES_PIECE) {
          yield text;
          text = "";
        }
      }
      if (text !== "") yield text;
    }
  }

  /** Chunks of at most FEED_CHUNK leaves and FEED_COMMITS commits, with their commits, the next one's read started before this one is yielded. */
  private async *chunks(from: number, to: number): AsyncGenerator<ResolvedChunk> {
    let chunk: LeafRecord[] = [];
    let ahead: Promise<ResolvedChunk> | undefined;
    let previous: ReadChunk | undefined;
    const start = (leaves: LeafRecord[]) => {
      const next = this.commitsFor(leaves, previous).then((commits) => ({ leaves, commits }));
      // Awaited in turn below; this only keeps a failure ahead of the reader from going unhandled.
      next.catch(() => {});
      previous = { keys: new Set(leaves.map((leaf) => keyOf(leaf.incidentId, leaf.commit))), read: next };
      return next;
    };
    let commits = new Set<string>();
    for await (const leaf of this.log.leaves(from, to)) {
      const key = keyOf(leaf.incidentId, leaf.commit);
      if (chunk.length === FEED_CHUNK || (!commits.has(key) && commits.size === FEED_COMMITS)) {
        const next = start(chunk);
        chunk = [];
        commits = new Set();
        if (ahead) yield await ahead;
        ahead = next;
      }
      commits.add(key);
      chunk.push(leaf);
    }
    const last = chunk.length > 0 ? start(chunk) : undefined;
    if (ahead) yield await ahead;
    if (last) yield await last;
  }

  private async commitsFor(leaves: LeafRecord[], before: ReadChunk | undefined): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const wanted = new Map<string, Item>();
    // A commit that spans the boundary is read for the chunk before and taken from there: its
    // keys are known before its read ends, so this chunk's read starts at once, beside it.
    const spanning: string[] = [];
    for (const leaf of leaves) {
      const key = keyOf(leaf.incidentId, leaf.commit);
      if (before?.keys.has(key)) spanning.push(key);
      else if (!wanted.has(key))
        wanted.set(key, {
          [EVENTS_KEYS.partitionKey]: { S: leaf.incidentId },
          [EVENTS_KEYS.sortKey]: { N: String(leaf.commit) },
        });
    }
    // Commits are immutable once written, but a leaf can be newer than an eventually
    // consistent replica's copy: read them consistently.
    const items = await batchGetItems(this.db, this.eventsTable, [...wanted.values()], { consistent: true });
    for (const item of items) found.set(keyOf(item.incidentId?.S ?? "", Number(item.version?.N)), item);
    if (before && spanning.length > 0) {
      const known = (await before.read).commits;
      for (const key of spanning) {
        const had = known.get(key);
        if (had) found.set(key, had);
      }
    }
    return found;
  }
}
