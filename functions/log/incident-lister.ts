import { type DynamoDBClient, QueryCommand, type QueryCommandInput } from "@aws-sdk/client-dynamodb";
import { WRITER_DEADLINE_MS } from "../store/claims.js";
import { COMMIT_SHARD_INDEX, commitShardValues } from "../store/commit-shard.js";
import { COMMIT_ITEM_TYPE, COMMIT_TIME_INDEX } from "../store/table-design.js";
import type { LogStore } from "./log-store.js";

/**
 * How far before the last catch-up's start the next one looks. A commit is put at most
 * WRITER_DEADLINE_MS after its events' recordedAt (claims.ts: a writer whose claims are older
 * gives up), and the index follows the table within seconds; a minute more for clocks.
 */
export const CATCH_UP_MARGIN_MS = WRITER_DEADLINE_MS + 60_000;

/**
 * The scheduled catch-up's incidents (AWS): those with a commit recorded since the last catch-up
 * that completed, read from the events table's sharded commit-time index (store/commit-shard.ts:
 * one Query per shard, in parallel, merged; no role may Scan).
 * Any incident with an unsequenced event has such a commit — views play no part, so an incident
 * never projected is found too. What a run reads is the commits of the last two schedule periods
 * and the margin, whatever the size of the archive; the first run (no position stored yet) reads
 * the whole index once.
 *
 * `list` notes when it started; `completed`, called after the pass and its checkpoint, stores
 * that time less the margin as the next run's start. A run that fails stores nothing, so the
 * next one looks back further.
 */
export class RecentCommitIncidents {
  private started: number | null = null;

  constructor(
    private readonly db: DynamoDBClient,
    private readonly eventsTable: string,
    private readonly log: LogStore,
    private readonly now: () => number = Date.now,
    private readonly marginMs = CATCH_UP_MARGIN_MS,
    /** The unsharded index (`byCommitTime`) while a stack still keeps it: its commits are read too. */
    private readonly legacyIndex: string | null = null,
  ) {}

  /** Incident ids with a commit recorded at or after the stored position, and how many commits were read. */
  async list(): Promise<{ incidents: string[]; commitsRead: number }> {
    this.started = this.now();
    const from = await this.log.catchUpPosition();
    const since = from === null ? "" : new Date(from).toISOString();
    const partitions: { index: string; keyName: string; keyValue: string }[] = commitShardValues().map(
      (shard) => ({
        index: COMMIT_SHARD_INDEX.name,
        keyName: COMMIT_SHARD_INDEX.partitionKey,
        keyValue: shard,
      }),
    );
    // Commits put before the shard attribute existed are only in the unsharded index, while it is kept.
    if (this.legacyIndex) {
      partitions.push({
        index: this.legacyIndex,
        keyName: COMMIT_TIME_INDEX.partitionKey,
        keyValue: COMMIT_ITEM_TYPE,
      });
    }
    const read = await Promise.all(
      partitions.map((p) => this.readPartition(p.index, p.keyName, p.keyValue, since)),
    );
    const ids = new Set<string>();
    let commitsRead = 0;
    for (const items of read) {
      commitsRead += items.length;
      for (const id of items) ids.add(id);
    }
    return { incidents: [...ids], commitsRead };
  }

  /** One partition of an index, from `since` on: the incident id of each commit it holds. */
  private async readPartition(
    index: string,
    keyName: string,
    keyValue: string,
    since: string,
  ): Promise<string[]> {
    const ids: string[] = [];
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.eventsTable,
          IndexName: index,
          KeyConditionExpression: "#t = :t AND #r >= :from",
          ExpressionAttributeNames: { "#t": keyName, "#r": COMMIT_SHARD_INDEX.sortKey },
          ExpressionAttributeValues: { ":t": { S: keyValue }, ":from": { S: since } },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) ids.push(item.incidentId?.S ?? "");
      start = out.LastEvaluatedKey;
    } while (start);
    return ids.filter((id) => id !== "");
  }

  /** The pass over what `list` returned is sequenced and signed: the next run starts from here. */
  async completed(): Promise<void> {
    if (this.started === null) return;
    await this.log.advanceCatchUpPosition(this.started - this.marginMs);
    this.started = null;
  }
}
