import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { type LocalStore, listenDynalite } from "../../functions/local/dynalite-store.js";
import { startStoreProcess } from "../../functions/local/store-process.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { filesHolding } from "../support/files-holding.js";

/**
 * A local store forgets an overwritten value when asked to compact its table: LevelDB otherwise
 * keeps the old value in its files (its log, then its tables) until it compacts them on its own.
 * Checked in the bytes of every file under the store's directory, in this process and in the
 * store process `npm start` runs.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function overwriteThenCompact(start: (dataDir: string) => Promise<LocalStore>) {
  const dataDir = mkdtempSync(join(tmpdir(), "ledger-compaction-"));
  dirs.push(dataDir);
  const store = await start(dataDir);
  const db: DynamoDBClient = createDynamoClient(store.endpoint);
  try {
    const table = "compaction-probe";
    const other = "compaction-neighbour";
    for (const name of [table, other])
      await db.send(
        new CreateTableCommand({
          TableName: name,
          AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
          KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
          BillingMode: "PAY_PER_REQUEST",
        }),
      );
    const secret = `erase-me-${randomBytes(12).toString("hex")}`;
    const kept = `keep-me-${randomBytes(12).toString("hex")}`;
    await db.send(new PutItemCommand({ TableName: table, Item: { pk: { S: "a" }, v: { S: secret } } }));
    await db.send(new PutItemCommand({ TableName: other, Item: { pk: { S: "b" }, v: { S: kept } } }));
    await db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: "a" } },
        UpdateExpression: "SET v = :v",
        ExpressionAttributeValues: { ":v": { S: "replaced" } },
      }),
    );
    // Overwritten, and still in the store's files: the check below can fail.
    expect(filesHolding(dataDir, secret)).not.toEqual([]);

    await store.compact(table);

    expect(filesHolding(dataDir, secret)).toEqual([]);
    const read = await db.send(
      new GetItemCommand({ TableName: table, Key: { pk: { S: "a" } }, ConsistentRead: true }),
    );
    expect(read.Item?.v?.S).toBe("replaced");
    const neighbour = await db.send(
      new GetItemCommand({ TableName: other, Key: { pk: { S: "b" } }, ConsistentRead: true }),
    );
    expect(neighbour.Item?.v?.S).toBe(kept);
  } finally {
    db.destroy();
    await store.close();
  }
}

describe("compacting a local store's table", () => {
  it("in this process: the overwritten value is gone from every file, the current ones read back", async () => {
    await overwriteThenCompact((dataDir) => listenDynalite({ host: "127.0.0.1", port: 0, dataDir }));
  });

  it("in the store process npm start runs: asked over its channel, answered when done", async () => {
    await overwriteThenCompact((dataDir) =>
      startStoreProcess({
        host: "127.0.0.1",
        port: 0,
        dataDir,
        onLost: (why) => {
          throw new Error(why);
        },
      }),
    );
  });

  it("in memory there are no files: compaction is nothing to do", async () => {
    const store = await listenDynalite({ host: "127.0.0.1", port: 0 });
    try {
      await expect(store.compact("any-table")).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
