import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { queryObjects } from "node:v8";
import { PutItemCommand, QueryCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { levelIteratorClasses } from "../../functions/local/dynalite-iterators.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";

/**
 * The local server's memory is bounded while it is read and written: every Query and Scan
 * dynalite serves closes its level iterator, so none stays attached to the store holding its
 * snapshot (one left open per read grew `npm start` by gigabytes over an import). Counted
 * with V8's own census of live objects, in memory and on disk (DATA_DIR, LevelDB).
 */
const READS = 60;

function openIterators(): number {
  return levelIteratorClasses().reduce(
    (n, cls) => n + (queryObjects(cls as unknown as new () => unknown, { format: "count" }) as number),
    0,
  );
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function readsLeaveNoIterators(archive: LocalServer) {
  const db = createDynamoClient(archive.dynamoEndpoint);
  try {
    const table = archive.tables.events;
    const put = (version: number) =>
      db.send(
        new PutItemCommand({
          TableName: table,
          Item: { incidentId: { S: "iterator-probe" }, version: { N: String(version) } },
        }),
      );
    for (let v = 1; v <= 5; v++) await put(v);
    const before = openIterators();
    for (let i = 0; i < READS; i++) {
      // A read that stops at its limit, one that runs to the end, and a write between (a new snapshot).
      await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: "incidentId = :i",
          ExpressionAttributeValues: { ":i": { S: "iterator-probe" } },
          Limit: 2,
        }),
      );
      await db.send(new ScanCommand({ TableName: archive.tables.views }));
      await put(6 + i);
    }
    expect(openIterators() - before).toBeLessThan(20);
  } finally {
    db.destroy();
  }
}

describe("the local store's reads", () => {
  it("close their iterators in memory", async () => {
    const archive = await startArchive();
    try {
      await readsLeaveNoIterators(archive);
    } finally {
      await archive.close();
    }
  }, 60_000);

  it("close their iterators on disk (DATA_DIR)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ledger-iterators-"));
    dirs.push(dir);
    const archive = await startArchive({ dataDir: dir });
    try {
      await readsLeaveNoIterators(archive);
    } finally {
      await archive.close();
    }
  }, 60_000);
});
