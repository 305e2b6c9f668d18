import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { conditionally, putIfAbsent } from "../store/dynamo-idioms.js";
import type { LogStore } from "./log-store.js";

/**
 * RFC 3161 tokens over the log's checkpoints, kept in the log's table beside them (see
 * log-store.ts for the other kinds of item):
 *
 *   timestamp        sk = tree size   the DER TimeStampResp over that checkpoint's body, with the
 *                                     body, the token's genTime and the TSA's URL. Put once.
 *   timestamp-state  sk = 0           `requestedAt`: when the last request to the TSA started
 *                                     (the one-a-minute lease, shared by every sequencer);
 *                                     `waitingSince`: since when a checkpoint waits for a token.
 */
export interface StoredTimestamp {
  treeSize: number;
  /** The checkpoint body the token's imprint is over (origin, size and root lines). */
  checkpoint: string;
  /** The token's genTime (ISO 8601). */
  genTime: string;
  /** The TSA's URL. */
  tsa: string;
  /** The whole DER TimeStampResp, as the TSA sent it. */
  token: Uint8Array;
}

export interface TimestampState {
  requestedAt: number | null;
  waitingSince: number | null;
}

type Item = Record<string, AttributeValue>;

const TIMESTAMP = "timestamp";
const STATE = "timestamp-state";
const key = (pk: string, sk: number): Item => ({ pk: { S: pk }, sk: { N: String(sk) } });

/** The most tokens one page of `page` holds. */
export const TIMESTAMP_PAGE_MAX = 100;

export class TimestampStore {
  constructor(
    private readonly db: DynamoDBClient,
    readonly table: string,
  ) {}

  /** Stores a token if none is stored at its tree size; returns the one stored there. */
  async put(timestamp: StoredTimestamp): Promise<StoredTimestamp> {
    const item = {
      ...key(TIMESTAMP, timestamp.treeSize),
      checkpoint: { S: timestamp.checkpoint },
      genTime: { S: timestamp.genTime },
      tsa: { S: timestamp.tsa },
      token: { B: timestamp.token },
    };
    if (await putIfAbsent(this.db, this.table, item, "sk")) return timestamp;
    return (await this.at(timestamp.treeSize)) as StoredTimestamp;
  }

  async at(treeSize: number): Promise<StoredTimestamp | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(TIMESTAMP, treeSize), ConsistentRead: true }),
    );
    return out.Item ? toTimestamp(out.Item) : null;
  }

  /** The token over the largest tree size, or null before the first. */
  async latest(): Promise<StoredTimestamp | null> {
    return (await this.page({ limit: 1 })).items[0] ?? null;
  }

  /**
   * Tokens newest first: those below `before` (all: undefined), at most `limit`. `next` is the
   * `before` of the following page (null: this was the last).
   */
  async page(options: {
    before?: number;
    limit: number;
  }): Promise<{ items: StoredTimestamp[]; next: number | null }> {
    const limit = Math.max(1, Math.min(TIMESTAMP_PAGE_MAX, options.limit));
    const below = options.before !== undefined;
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: below ? "pk = :p AND sk < :b" : "pk = :p",
        ExpressionAttributeValues: {
          ":p": { S: TIMESTAMP },
          ...(below ? { ":b": { N: String(options.before) } } : {}),
        },
        ScanIndexForward: false,
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    const items = (out.Items ?? []).map(toTimestamp);
    const last = items[items.length - 1];
    return { items, next: out.LastEvaluatedKey && last ? last.treeSize : null };
  }

  /**
   * The token over the checkpoint of `treeSize` if there is one, else over the nearest larger
   * checkpoint (whose tree holds this one's as a prefix: a consistency proof links the two).
   * Null when no token covers that size yet.
   */
  async covering(treeSize: number): Promise<StoredTimestamp | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :p AND sk >= :s",
        ExpressionAttributeValues: { ":p": { S: TIMESTAMP }, ":s": { N: String(treeSize) } },
        ScanIndexForward: true,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? toTimestamp(item) : null;
  }

  /** The DER response over that checkpoint, or over the nearest larger one (see `covering`). */
  async timestampFor(treeSize: number): Promise<Uint8Array | null> {
    return (await this.covering(treeSize))?.token ?? null;
  }

  async state(): Promise<TimestampState> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(STATE, 0), ConsistentRead: true }),
    );
    const n = (v: AttributeValue | undefined) => (v?.N ? Number(v.N) : null);
    return { requestedAt: n(out.Item?.requestedAt), waitingSince: n(out.Item?.waitingSince) };
  }

  /**
   * Takes the right to ask the TSA now: only if no request started in the last `intervalMs`
   * (by this process or another). false: another got there first.
   */
  async claimRequest(now: number, intervalMs: number, waitingSince: number | null): Promise<boolean> {
    return conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: key(STATE, 0),
          UpdateExpression:
            waitingSince === null ? "SET #r = :now" : "SET #r = :now, #w = if_not_exists(#w, :w)",
          ConditionExpression: "attribute_not_exists(#r) OR #r <= :cut",
          ExpressionAttributeNames: {
            "#r": "requestedAt",
            ...(waitingSince === null ? {} : { "#w": "waitingSince" }),
          },
          ExpressionAttributeValues: {
            ":now": { N: String(now) },
            ":cut": { N: String(now - intervalMs) },
            ...(waitingSince === null ? {} : { ":w": { N: String(waitingSince) } }),
          },
        }),
      ),
    );
  }

  /** Records since when a checkpoint waits for a token (null: none does). */
  async setWaitingSince(since: number | null): Promise<void> {
    await this.db.send(
      new UpdateItemCommand({
        TableName: this.table,
        Key: key(STATE, 0),
        UpdateExpression: since === null ? "REMOVE #w" : "SET #w = :w",
        ExpressionAttributeNames: { "#w": "waitingSince" },
        ...(since === null ? {} : { ExpressionAttributeValues: { ":w": { N: String(since) } } }),
      }),
    );
  }
}

/** The tokens kept in a log's table. */
export function timestampsOf(log: LogStore): TimestampStore {
  return new TimestampStore(log.db, log.table);
}

function toTimestamp(item: Item): StoredTimestamp {
  return {
    treeSize: Number(item.sk?.N),
    checkpoint: item.checkpoint?.S ?? "",
    genTime: item.genTime?.S ?? "",
    tsa: item.tsa?.S ?? "",
    token: item.token?.B ?? new Uint8Array(),
  };
}
