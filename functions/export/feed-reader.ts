import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { StoredEvent } from "../../events/stored-event.js";
import { type Commit, itemToCommit } from "../store/commit-item.js";
import { batchGetItems } from "../store/dynamo-idioms.js";
import { EVENTS_KEYS } from "../store/table-design.js";
import type { LeafRecord, LogReader } from "./log-reader.js";

export interface FeedEntry {
  index: number;
  event: StoredEvent;
}

/**
 * Leaves read ahead at a time. It bounds memory (at most this many commit items, each under
 * 400 KB, are held) while keeping each BatchGetItem full.
 */
export const FEED_CHUNK = 200;

export class MissingCommitError extends Error {
  constructor(readonly leaf: LeafRecord) {
    super(
      `log leaf ${leaf.index} names ${leaf.incidentId} v${leaf.version} in commit ${leaf.commit}, which the events table does not hold`,
    );
    this.name = "MissingCommitError";
  }
}

const keyOf = (incidentId: string, commit: number) => `${incidentId}@${commit}`;

/**
 * The stored events behind the log's leaves, in log order. Each leaf names the commit item that
 * holds its event; a chunk of leaves is served by BatchGetItem of the distinct commits it names
 * (never one read per event), and the previous chunk's commits are kept for a commit that spans
 * two chunks.
 */
export class FeedReader {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly eventsTable: string,
    private readonly log: LogReader,
  ) {}

  async *entries(from: number, to: number): AsyncGenerator<FeedEntry> {
    let chunk: LeafRecord[] = [];
    let previous = new Map<string, Commit>();
    const flush = async function* (this: FeedReader) {
      const commits = await this.commitsFor(chunk, previous);
      for (const leaf of chunk) {
        const commit = commits.get(keyOf(leaf.incidentId, leaf.commit));
        const event = commit?.events[leaf.version - leaf.commit];
        if (!event || event.version !== leaf.version) throw new MissingCommitError(leaf);
        yield { index: leaf.index, event };
      }
      previous = commits;
      chunk = [];
    }.bind(this);
    for await (const leaf of this.log.leaves(from, to)) {
      chunk.push(leaf);
      if (chunk.length === FEED_CHUNK) yield* flush();
    }
    if (chunk.length > 0) yield* flush();
  }

  private async commitsFor(leaves: LeafRecord[], known: Map<string, Commit>): Promise<Map<string, Commit>> {
    const found = new Map<string, Commit>();
    const wanted = new Map<string, Record<string, AttributeValue>>();
    for (const leaf of leaves) {
      const key = keyOf(leaf.incidentId, leaf.commit);
      const had = known.get(key);
      if (had) found.set(key, had);
      else if (!found.has(key))
        wanted.set(key, {
          [EVENTS_KEYS.partitionKey]: { S: leaf.incidentId },
          [EVENTS_KEYS.sortKey]: { N: String(leaf.commit) },
        });
    }
    // Commits are immutable once written, but a leaf can be newer than an eventually
    // consistent replica's copy: read them consistently.
    const items = await batchGetItems(this.db, this.eventsTable, [...wanted.values()], { consistent: true });
    for (const item of items) {
      const commit = itemToCommit(item);
      found.set(keyOf(commit.incidentId, commit.version), commit);
    }
    return found;
  }
}
