import { type AttributeValue, QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { incidentsFromActivityIndex } from "../../functions/log/incident-lister.js";
import { createLogHandler } from "../../functions/log/log-handler.js";
import { LOG_METRICS } from "../../functions/log/log-metrics.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore } from "../../functions/log/log-store.js";
import { silentLogger } from "../../functions/log.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
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

describe("the sequencer Lambda's handler", () => {
  it("sequences the incidents a stream batch names, and the schedule catches up on the rest", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const store = new LogStore(db, await freshLogTable(archive));
    const writer = createLogWriter({
      store,
      events: archive.ledger.events,
      signer: testSigner(),
      log: silentLogger,
      allIncidents: incidentsFromActivityIndex(db, archive.tables.views),
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

    await handler({ source: "aws.events", "detail-type": "Scheduled Event" });
    const all = await eventsFromApi(archive.url, [...STREAMED, ...MISSED]);
    expect(checkLogAgainstEvents(await allLeaves(store), all).problems).toEqual([]);
    expect((await store.latestCheckpoint())?.size).toBe(all.length);
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
