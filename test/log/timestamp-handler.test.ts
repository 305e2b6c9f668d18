import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createLogHandler } from "../../functions/log/log-handler.js";
import { LOG_METRICS } from "../../functions/log/log-metrics.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore } from "../../functions/log/log-store.js";
import { TimestampAuthority } from "../../functions/log/timestamp-authority.js";
import { TIMESTAMP_TICK, TimestampKeeper } from "../../functions/log/timestamp-keeper.js";
import { timestampsOf } from "../../functions/log/timestamp-store.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { streamEvent, streamInsert } from "../infra/lambda-events.js";
import { casualties, post, startArchive } from "../support/archive.js";
import { closedPortUrl, type LocalTsa, startLocalTsa } from "../support/local-tsa.js";
import { appendEvents, freshLogTable, testSigner } from "./log-kit.js";

const INCIDENT = "tsa-handler-2024";
let archive: LocalServer;
let tsa: LocalTsa;
beforeAll(async () => {
  archive = await startArchive();
  tsa = await startLocalTsa();
  await appendEvents(archive.url, [INCIDENT], 4);
});
afterAll(async () => {
  await archive.close();
  await tsa.close();
});

async function streamRecords(incidentId: string) {
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

describe("trusted time in the sequencer Lambda", () => {
  it("asks the TSA only on the time-stamping schedule, once a minute, and reports the wait as an EMF metric", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const store = new LogStore(db, await freshLogTable(archive));
    const writer = createLogWriter({
      store,
      events: archive.ledger.events,
      signer: testSigner(),
      log: silentLogger,
      tsa: { url: tsa.url, follow: false },
    });
    const lines: string[] = [];
    const handler = createLogHandler(
      async () => writer,
      silentLogger,
      (line) => lines.push(line),
    );
    const asked = tsa.queries.length;

    // A stream batch sequences and signs: the TSA is not asked (a slow one holds no batch back).
    const first = await handler(streamEvent(await streamRecords(INCIDENT)));
    expect(first?.batchItemFailures).toEqual([]);
    const checkpoint = await store.latestCheckpoint();
    expect(checkpoint?.size).toBe(4);
    expect(tsa.queries.length).toBe(asked);

    // The schedule's step asks for a token over the newest checkpoint and stores it.
    await handler({ ...TIMESTAMP_TICK });
    expect(tsa.queries.length).toBe(asked + 1);
    const token = await timestampsOf(store).at(4);
    expect(token?.checkpoint).toBe(checkpoint?.text.slice(0, checkpoint.text.indexOf("\n\n") + 1));
    const metric = JSON.parse(lines.at(-1) ?? "{}");
    expect(metric._aws.CloudWatchMetrics[0].Metrics).toEqual([
      { Name: LOG_METRICS.timestampDelay, Unit: "Seconds" },
    ]);
    expect(metric[LOG_METRICS.timestampDelay]).toBe(0);

    // The log grows; the next step within the minute does not ask (the store's lease says so).
    expect(
      (await post(archive.url, INCIDENT, casualties({ killed: { value: 9, qualifier: "exact" } }))).status,
    ).toBe(201);
    await handler(streamEvent(await streamRecords(INCIDENT)));
    expect((await store.latestCheckpoint())?.size).toBe(5);
    await handler({ ...TIMESTAMP_TICK });
    expect(tsa.queries.length).toBe(asked + 1);
    expect(await timestampsOf(store).at(5)).toBeNull();
    expect((await timestampsOf(store).state()).waitingSince).not.toBeNull();
    db.destroy();
  });

  it("a keeper whose TSA is down: one request a minute by the injected clock, and the wait grows past five minutes (overdue)", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const store = new LogStore(db, await freshLogTable(archive));
    const writer = createLogWriter({
      store,
      events: archive.ledger.events,
      signer: testSigner(),
      log: silentLogger,
    });
    await writer.pass();
    let clock = Date.parse("2026-04-08T10:00:00Z");
    const down = new TimestampAuthority(await closedPortUrl(), 500);
    let requests = 0;
    const counting = Object.assign(Object.create(down) as TimestampAuthority, {
      stamp: (text: string, signal?: AbortSignal) => {
        requests += 1;
        return down.stamp(text, signal);
      },
    });
    const keeper = new TimestampKeeper({
      store: timestampsOf(store),
      latestCheckpoint: () => store.latestCheckpoint(),
      authority: counting,
      log: silentLogger,
      now: () => clock,
    });
    const seen: { minute: number; delaySeconds: number; overdue: boolean }[] = [];
    for (let second = 0; second <= 7 * 60; second += 20) {
      clock = Date.parse("2026-04-08T10:00:00Z") + second * 1000;
      seen.push({ minute: second / 60, ...(await keeper.tick()) });
    }
    // Every 20 s for 7 minutes, but one request a minute: at 0, 1, …, 7.
    expect(requests).toBe(8);
    expect(seen.at(-1)).toMatchObject({ delaySeconds: 420, overdue: true });
    expect(seen.find((s) => s.minute === 5)?.overdue).toBe(false);
    expect(seen.find((s) => s.minute > 5)?.overdue).toBe(true);
    expect(await timestampsOf(store).latest()).toBeNull();
    await keeper.close();
    db.destroy();
  });

  it("two sequencers sharing one store (AWS) ask once a minute between them, and the token is stored once", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const store = new LogStore(db, await freshLogTable(archive));
    const writer = createLogWriter({
      store,
      events: archive.ledger.events,
      signer: testSigner(),
      log: silentLogger,
    });
    await writer.pass();
    const start = Date.parse("2026-04-08T10:00:00Z");
    let clock = start;
    const keeper = () =>
      new TimestampKeeper({
        store: timestampsOf(store),
        latestCheckpoint: () => store.latestCheckpoint(),
        authority: new TimestampAuthority(tsa.url),
        log: silentLogger,
        now: () => clock,
      });
    const [a, b] = [keeper(), keeper()];
    const asked = tsa.queries.length;
    await Promise.all([a.tick(), b.tick()]);
    expect(tsa.queries.length).toBe(asked + 1);
    const first = (await store.latestCheckpoint())?.size;
    expect((await timestampsOf(store).page({ limit: 10 })).items.map((t) => t.treeSize)).toEqual([first]);
    // The log grows; 30 s later neither may ask, nor may a third that just started (a restart).
    expect(
      (await post(archive.url, INCIDENT, casualties({ killed: { value: 11, qualifier: "exact" } }))).status,
    ).toBe(201);
    await writer.pass();
    clock = start + 30_000;
    await Promise.all([a.tick(), b.tick(), keeper().tick()]);
    expect(tsa.queries.length).toBe(asked + 1);
    // A minute after the first request, one of them asks, for the newest checkpoint.
    clock = start + 60_000;
    await Promise.all([a.tick(), b.tick()]);
    expect(tsa.queries.length).toBe(asked + 2);
    const sizes = (await timestampsOf(store).page({ limit: 10 })).items.map((t) => t.treeSize);
    expect(sizes[0]).toBe((await store.latestCheckpoint())?.size);
    expect(sizes).toHaveLength(2);
    db.destroy();
  });
});
