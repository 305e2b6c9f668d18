import {
  type AttributeValue,
  CreateTableCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { RecentCommitIncidents } from "../../functions/log/incident-lister.js";
import { createLogHandler } from "../../functions/log/log-handler.js";
import { LOG_METRICS } from "../../functions/log/log-metrics.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore } from "../../functions/log/log-store.js";
import { silentLogger } from "../../functions/logger.js";
import { COMMIT_SHARD_INDEX, COMMIT_SHARDS } from "../../functions/store/commit-shard.js";
import { tableDefinitions } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { COMMIT_TIME_INDEX } from "../../functions/store/table-design.js";
import { streamEvent, streamInsert } from "../infra/lambda-events.js";
import { startArchive } from "../support/archive.js";
import {
  allLeaves,
  appendEvents,
  checkLogAgainstEvents,
  eventsFromApi,
  freshLogTable,
  testSigner,
} from "./log-kit.js";

const STREAMED = ["handler-alpha-2024", "handler-bravo-2024"];
const MISSED = ["handler-charlie-2024"];
let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await appendEvents(archive.url, [...STREAMED, ...MISSED], 30);
});
afterAll(() => archive.close());

async function commitRecords(incidentId: string) {
  const db = createDynamoClient(archive.dynamoEndpoint);
  const out = await db.send(
    new QueryCommand({
      TableName: archive.tables.events,
      KeyConditionExpression: "incidentId = :i",
      ExpressionAttributeValues: { ":i": { S: incidentId } },
    }),
  );
  db.destroy();
  return (out.Items ?? []).map((item) =>
    streamInsert(
      archive.tables.events,
      { incidentId: item.incidentId, version: item.version } as Record<string, AttributeValue>,
      item,
    ),
  );
}

/**
 * An events table as the stack makes it: with the sharded commit-time index, and with the
 * unsharded one too as an upgrading stack keeps it (the local server has neither; it scans).
 */
async function indexedEventsTable(db: DynamoDBClient, name: string, legacy = false): Promise<string> {
  const events = tableDefinitions({ ...archive.tables, events: name })[0] as ConstructorParameters<
    typeof CreateTableCommand
  >[0];
  const indexes = [COMMIT_SHARD_INDEX, ...(legacy ? [COMMIT_TIME_INDEX] : [])];
  await db.send(
    new CreateTableCommand({
      ...events,
      AttributeDefinitions: [
        ...(events.AttributeDefinitions ?? []),
        ...[...new Set(indexes.flatMap((i) => [i.partitionKey, i.sortKey]))].map((a) => ({
          AttributeName: a,
          AttributeType: "S" as const,
        })),
      ],
      GlobalSecondaryIndexes: indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: "HASH" as const },
          { AttributeName: index.sortKey, KeyType: "RANGE" as const },
        ],
        Projection: { ProjectionType: "KEYS_ONLY" as const },
      })),
    }),
  );
  return name;
}

/** Copies the archive's commits of these incidents into `table`; returns how many. `unsharded`: as put before commitShard existed. */
async function copyCommits(
  db: DynamoDBClient,
  table: string,
  incidents: string[],
  unsharded = false,
): Promise<number> {
  let copied = 0;
  for (const id of incidents) {
    const out = await db.send(
      new QueryCommand({
        TableName: archive.tables.events,
        KeyConditionExpression: "incidentId = :i",
        ExpressionAttributeValues: { ":i": { S: id } },
      }),
    );
    for (const item of out.Items ?? []) {
      const { commitShard, ...old } = item;
      await db.send(new PutItemCommand({ TableName: table, Item: unsharded ? old : item }));
      copied += 1;
    }
  }
  return copied;
}

/** Appends events to a new incident, then removes its view: an incident no view lists. */
async function viewlessIncident(db: DynamoDBClient, id: string, events: number): Promise<void> {
  await appendEvents(archive.url, [id], events);
  await db.send(new DeleteItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }));
}

describe("the sequencer Lambda's handler", () => {
  it("sequences the incidents a stream batch names, and the schedule catches up on the rest (with or without a view)", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    // Incidents with events and no view (their views deleted): only their commits say they exist.
    const NO_VIEW = ["handler-unviewed-2024", "handler-unviewed-later-2024"] as const;
    await viewlessIncident(db, NO_VIEW[0], 5);
    const eventsTable = await indexedEventsTable(db, `events-indexed-${process.pid}`);
    const firstCommits = await copyCommits(db, eventsTable, [...STREAMED, ...MISSED, NO_VIEW[0]]);
    const store = new LogStore(db, await freshLogTable(archive));
    // No margin here: the test's commits are all recorded within the margin of its runs.
    const catchUp = new RecentCommitIncidents(db, eventsTable, store, Date.now, 0);
    const reads: number[] = [];
    const writer = createLogWriter({
      store,
      events: new EventStore({ db, tables: { ...archive.tables, events: eventsTable } }),
      signer: testSigner(),
      log: silentLogger,
      catchUp: {
        list: async () => {
          const listed = await catchUp.list();
          reads.push(listed.commitsRead);
          return listed;
        },
        completed: () => catchUp.completed(),
      },
    });
    const lines: string[] = [];
    const handler = createLogHandler(
      async () => writer,
      silentLogger,
      (line) => lines.push(line),
    );
    const records = (await Promise.all(STREAMED.map(commitRecords))).flat();
    // Delivered twice and out of order, as streams may: one log all the same.
    const answer = await handler(streamEvent([...records, ...records].reverse()));
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(
      checkLogAgainstEvents(await allLeaves(store), await eventsFromApi(archive.url, STREAMED)).problems,
    ).toEqual([]);
    expect((await store.latestCheckpoint())?.size).toBe(60);
    // Its health, as an EMF line CloudWatch makes metrics of: nothing left unsigned.
    const metric = JSON.parse(lines.at(-1) as string);
    expect(metric._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: LOG_METRICS.namespace,
      Dimensions: [[LOG_METRICS.dimension]],
    });
    expect(metric[LOG_METRICS.leavesBehind]).toBe(0);
    expect(metric[LOG_METRICS.checkpointDelay]).toBeGreaterThan(0);

    // The schedule: the stream never named MISSED nor the viewless incident; its first run reads
    // every commit (no position yet).
    await handler({ source: "aws.events", "detail-type": "Scheduled Event" });
    const first = await eventsFromApi(archive.url, [...STREAMED, ...MISSED, NO_VIEW[0]]);
    expect(checkLogAgainstEvents(await allLeaves(store), first).problems).toEqual([]);
    expect((await store.latestCheckpoint())?.size).toBe(first.length);
    expect(reads).toEqual([firstCommits]);

    // Later: one more viewless incident. The next run reads the commits recorded since the last
    // run started — that incident's — not the archive again.
    await viewlessIncident(db, NO_VIEW[1], 3);
    const laterCommits = await copyCommits(db, eventsTable, [NO_VIEW[1]]);
    await handler({ source: "aws.events", "detail-type": "Scheduled Event" });
    const all = await eventsFromApi(archive.url, [...STREAMED, ...MISSED, ...NO_VIEW]);
    expect(checkLogAgainstEvents(await allLeaves(store), all).problems).toEqual([]);
    expect((await store.latestCheckpoint())?.size).toBe(all.length);
    expect(reads).toEqual([firstCommits, laterCommits]);
    db.destroy();
  });

  it("finds every commit across the shards, and, while the unsharded index is kept, the commits put before shards", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const store = new LogStore(db, await freshLogTable(archive));
    const OLD = ["handler-unsharded-2024"];
    const NEW = Array.from({ length: 12 }, (_, n) => `handler-sharded-${n}-2024`);
    await appendEvents(archive.url, [...OLD, ...NEW], 2);
    const table = await indexedEventsTable(db, `events-sharded-${process.pid}`, true);
    const oldCommits = await copyCommits(db, table, OLD, true);
    const newCommits = await copyCommits(db, table, NEW);
    const shards = new Set<string>();
    for (const id of NEW) {
      const out = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: "incidentId = :i",
          ExpressionAttributeValues: { ":i": { S: id } },
        }),
      );
      for (const item of out.Items ?? []) shards.add(item.commitShard?.S ?? "none");
    }
    // The commits spread over several shards, none outside the fixed range.
    expect(shards.size).toBeGreaterThan(4);
    for (const shard of shards) expect(Number(shard)).toBeLessThan(COMMIT_SHARDS);

    const sharded = await new RecentCommitIncidents(db, table, store, Date.now, 0).list();
    expect(sharded.incidents.sort()).toEqual([...NEW].sort());
    expect(sharded.commitsRead).toBe(newCommits);
    const both = await new RecentCommitIncidents(
      db,
      table,
      store,
      Date.now,
      0,
      COMMIT_TIME_INDEX.name,
    ).list();
    expect(both.incidents.sort()).toEqual([...OLD, ...NEW].sort());
    // The unsharded index holds the new commits as well (they keep itemType): read twice, listed once.
    expect(both.commitsRead).toBe(oldCommits + 2 * newCommits);
    db.destroy();
  });

  it("reports every record of a batch it could not sequence, so the event source retries it", async () => {
    const handler = createLogHandler(() => Promise.reject(new Error("KMS is unreachable")), silentLogger);
    const records = await commitRecords(STREAMED[0] as string);
    const answer = await handler(streamEvent(records));
    expect(answer?.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(
      records.map((r) => r.dynamodb?.SequenceNumber),
    );
  });

  it("logs the events a failed run left unsigned and how long the oldest has waited", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const signer = testSigner();
    const writer = createLogWriter({
      store: new LogStore(db, await freshLogTable(archive)),
      events: archive.ledger.events,
      // KMS refuses: the leaves are stored, no checkpoint is signed.
      signer: { ...signer, sign: () => Promise.reject(new Error("KMS is throttling")) },
      log: silentLogger,
    });
    const lines: string[] = [];
    const at = Date.parse("2099-01-01T00:00:00Z");
    const handler = createLogHandler(
      async () => writer,
      silentLogger,
      (line) => lines.push(line),
      () => at,
    );
    const records = await commitRecords(STREAMED[0] as string);
    const answer = await handler(streamEvent(records));
    expect(answer?.batchItemFailures).toHaveLength(records.length);
    const metric = JSON.parse(lines.at(-1) as string);
    expect(metric[LOG_METRICS.leavesBehind]).toBe(30);
    const oldest = (await eventsFromApi(archive.url, [STREAMED[0] as string]))[0] as unknown as {
      recordedAt: string;
    };
    expect(metric[LOG_METRICS.checkpointDelay]).toBe((at - Date.parse(oldest.recordedAt)) / 1000);
    expect(metric._aws.Timestamp).toBe(at);
    db.destroy();
  });
});
