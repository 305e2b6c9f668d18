import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { DynamoDBRecord } from "aws-lambda";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { summarize } from "../../events/summarize.js";
import { fold } from "../../events/summary.js";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { createStreamHandler } from "../../functions/projector/stream-handler.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { streamEvent, streamInsert } from "../infra/lambda-events.js";
import { AP, casualties, opened, startArchive } from "../support/archive.js";
import { type CallInfo, faultyClient } from "../support/faulty-client.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

/**
 * Appends as the API Lambda does in AWS: nothing feeds a projector in-process; each commit
 * only becomes a DynamoDB Streams INSERT record, which the test then delivers — or drops.
 */
async function writeLikeAws(
  tables: TableNames,
  incidents: number,
  prefix: string,
): Promise<DynamoDBRecord[]> {
  const records: DynamoDBRecord[] = [];
  const db = createDynamoClient(archive.dynamoEndpoint);
  const store = new EventStore({
    db,
    tables,
    onCommit: (item) =>
      records.push(
        streamInsert(tables.events, { incidentId: item.incidentId, version: item.version } as never, item),
      ),
  });
  const append = (incidentId: string, envelopes: unknown[]) =>
    store.append({
      incidentId,
      envelopes: envelopes as never,
      recordedBy: "w",
      batched: envelopes.length > 1,
    });
  for (let i = 0; i < incidents; i++) {
    const id = `${prefix}-${i}`;
    await append(id, [opened(undefined, { location: { name: `Town ${i}`, country: i % 2 ? "UA" : "SY" } })]);
    for (let k = 0; k < 1 + (i % 4); k++) {
      await append(id, [casualties({ killed: { value: 10 * i + k, qualifier: "exact" } }, `source-${k}`)]);
    }
    if (i % 3 === 0) {
      await append(id, [
        { type: "DenialIssued", source: AP, attributedTo: { name: "Ministry" }, data: { claim: "a strike" } },
        casualties({ injured: { value: i, qualifier: "about" } }, "Police"),
      ]);
    }
  }
  db.destroy();
  return records;
}

/** What every view must be: the fold of all stored events, from scratch. */
async function expectViewsRebuilt(ledger: ReturnType<typeof createLedger>, ids: string[]): Promise<void> {
  for (const id of ids) {
    const all: StoredEvent[] = [];
    for await (const event of ledger.events.events(id)) all.push(event);
    expect(await ledger.views.getSummary(id)).toEqual(summarize(fold(id, all)));
  }
}

describe("issue 8, item 4: the view-repair sweep", () => {
  it("after stream records are dropped, views lag; after the sweep they equal a rebuild from scratch", async () => {
    const records = await writeLikeAws(archive.tables, 12, "repair-dropped");
    const ids = Array.from({ length: 12 }, (_, i) => `repair-dropped-${i}`);
    const ledger = createLedger({
      db: createDynamoClient(archive.dynamoEndpoint),
      tables: archive.tables,
      log: silentLogger,
    });
    const handler = createStreamHandler(ledger.projector, silentLogger);
    // Deliver a seeded random part of the records (out of order, some twice); drop the rest,
    // as records that exhausted their retries would be.
    const delivered = fc.sample(
      fc.shuffledSubarray(records, { minLength: 5, maxLength: records.length - 8 }),
      {
        seed: 8,
        numRuns: 1,
      },
    )[0] as DynamoDBRecord[];
    expect((await handler(streamEvent(delivered))).batchItemFailures).toEqual([]);
    const heads = await ledger.events.incidentVersions();
    const lagging = [];
    for (const id of ids) {
      const view = (await ledger.views.getSummary(id))?.version ?? 0;
      if (view < (heads.get(id) ?? 0)) lagging.push(id);
    }
    expect(lagging.length).toBeGreaterThan(0);

    const progress: number[] = [];
    const report = await repairViews(
      { ...ledger, log: silentLogger },
      { onProgress: (p) => progress.push(p.done) },
    );
    expect(report.failed).toEqual([]);
    expect(report.built + report.caughtUp).toBeGreaterThanOrEqual(lagging.length);
    expect(progress[progress.length - 1]).toBe(report.built + report.caughtUp);
    await expectViewsRebuilt(ledger, ids);
    // A second sweep finds nothing to do.
    const again = await repairViews({ ...ledger, log: silentLogger });
    expect(again.built + again.caughtUp).toBe(0);
  });

  it("starts from nothing on an empty views table: no view reads, batched writes", async () => {
    const tables = { ...archive.tables, events: "repair-fresh-events", views: "repair-fresh-views" };
    await createTables(createDynamoClient(archive.dynamoEndpoint), tables);
    await writeLikeAws(tables, 30, "repair-fresh");
    const calls: CallInfo[] = [];
    const db = faultyClient(archive.dynamoEndpoint, (call) => {
      calls.push(call);
      return "none";
    });
    const ledger = createLedger({ db, tables, log: silentLogger });
    const progress: { done: number; events: number }[] = [];
    const report = await repairViews(
      { ...ledger, log: silentLogger },
      { onProgress: ({ done, events }) => progress.push({ done, events }) },
    );
    expect(report).toMatchObject({ incidents: 30, built: 30, caughtUp: 0, failed: [] });
    const heads = await ledger.events.incidentVersions();
    const stored = [...heads.values()].reduce((a, b) => a + b, 0);
    expect(report.events).toBe(stored);
    // Progress counts the events of each batch of views as it is written, not only at the end.
    expect(progress.map((p) => p.done)).toEqual([25, 30]);
    expect(progress[0]?.events).toBeGreaterThan(0);
    expect(progress[0]?.events).toBeLessThan(stored);
    expect(progress[1]?.events).toBe(stored);
    const onViews = calls.filter((c) => c.table === tables.views).map((c) => c.command);
    // One scan page of an empty table, then two batches (25 + 5): nothing else.
    expect(onViews).toEqual(["ScanCommand", "BatchWriteItemCommand", "BatchWriteItemCommand"]);
    await expectViewsRebuilt(
      ledger,
      Array.from({ length: 30 }, (_, i) => `repair-fresh-${i}`),
    );
    db.destroy();
  });

  it("`npm run rebuild` runs the same sweep against the server's endpoint, with a progress line", async () => {
    await writeLikeAws(archive.tables, 3, "repair-cli");
    const run = await promisify(execFile)("npx", ["tsx", "scripts/rebuild.ts"], {
      env: { ...process.env, DYNAMODB_ENDPOINT: archive.dynamoEndpoint },
    });
    expect(run.stderr).toMatch(/rebuild: 3\/3 lagging views repaired/);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ built: 3, failed: [] });
    const ledger = createLedger({
      db: createDynamoClient(archive.dynamoEndpoint),
      tables: archive.tables,
      log: silentLogger,
    });
    await expectViewsRebuilt(ledger, ["repair-cli-0", "repair-cli-1", "repair-cli-2"]);
  });
});
