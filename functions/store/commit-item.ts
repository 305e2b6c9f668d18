import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { ChainHead, StoredEvent } from "../../events/stored-event.js";
import { commitShardOf } from "./commit-shard.js";
import { COMMIT_ITEM_TYPE } from "./table-design.js";

/**
 * One append, stored whole in one item: that single conditional put is what makes a batch
 * atomic and two writers collide, without transactions. Each event is kept as the exact JSON
 * text `GET …/events` returns, so any DynamoDB tool can read it and the hash covers what is read.
 */
export interface Commit {
  incidentId: string;
  /** The commit's first version: the sort key, the slot a writer races for. */
  version: number;
  lastVersion: number;
  events: StoredEvent[];
  /**
   * A random token of the writer that made it, outside the events: if the answer to the put
   * is lost and the SDK retries, the writer recognises its own commit by it.
   */
  token: string;
  /**
   * Some stored commits hold several appends, each a slice: the first version of each slice,
   * in order. Absent on a commit of one append (all that the append path writes), where the
   * whole commit is one slice. Such items are still read: stored items are never rewritten.
   */
  appends?: number[];
}

export type Item = Record<string, AttributeValue>;

export function commitToItem(commit: Commit): Item {
  const last = commit.events[commit.events.length - 1];
  if (!last) throw new RangeError("a commit holds at least one event");
  const item: Item = {
    incidentId: { S: commit.incidentId },
    version: { N: String(commit.version) },
    lastVersion: { N: String(commit.lastVersion) },
    lastHash: { S: last.hash },
    lastRecordedAt: { S: last.recordedAt },
    itemType: { S: COMMIT_ITEM_TYPE },
    commitShard: { S: commitShardOf(commit.incidentId, commit.version) },
    token: { S: commit.token },
    events: { L: commit.events.map((e) => ({ S: JSON.stringify(e) })) },
  };
  if (commit.appends && commit.appends.length > 1) {
    item.appends = { L: commit.appends.map((v) => ({ N: String(v) })) };
  }
  return item;
}

export class UnreadableCommitError extends Error {
  constructor(
    readonly incidentId: string,
    readonly version: number,
    reason: string,
  ) {
    super(`commit ${incidentId}@${version} cannot be read: ${reason}`);
    this.name = "UnreadableCommitError";
  }
}

export function itemToCommit(item: Item): Commit {
  const incidentId = item.incidentId?.S ?? "";
  const version = Number(item.version?.N);
  try {
    const events = (item.events?.L ?? []).map((v) => JSON.parse(v.S ?? "") as StoredEvent);
    const appends = item.appends?.L?.map((v) => Number(v.N));
    return {
      incidentId,
      version,
      lastVersion: Number(item.lastVersion?.N),
      events,
      token: item.token?.S ?? "",
      ...(appends ? { appends } : {}),
    };
  } catch (error) {
    throw new UnreadableCommitError(incidentId, version, (error as Error).message);
  }
}

/** The events of the one append, in this commit, that stored `version` (its slice). */
export function sliceHolding(commit: Commit, version: number): StoredEvent[] {
  const starts = commit.appends ?? [commit.version];
  let from = commit.version;
  let to = commit.lastVersion + 1;
  for (const start of starts) {
    if (start <= version) from = start;
    else {
      to = start;
      break;
    }
  }
  return commit.events.filter((e) => e.version >= from && e.version < to);
}

export function itemToHead(item: Item): ChainHead {
  return {
    version: Number(item.lastVersion?.N),
    hash: item.lastHash?.S ?? "",
    recordedAt: item.lastRecordedAt?.S ?? null,
  };
}
