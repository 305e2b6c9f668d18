import { spawn } from "node:child_process";
import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";
import { loadSample } from "./finding-kit.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await loadSample(archive);
});
afterAll(() => archive.close());

function reindex(env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/reindex.ts"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout })));
}

describe("npm run reindex", () => {
  it("indexes every incident of an archive whose search table is empty (views projected before it existed)", async () => {
    const search = `reindex-search-${process.pid}`;
    const env = {
      DYNAMODB_ENDPOINT: archive.dynamoEndpoint,
      EVENTS_TABLE: archive.tables.events,
      CLAIMS_TABLE: archive.tables.claims,
      VIEWS_TABLE: archive.tables.views,
      SEARCH_TABLE: search,
    };
    const first = await reindex(env);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ incidents: 3, failed: 0 });
    const db = createDynamoClient(archive.dynamoEndpoint);
    const entries = await db.send(
      new QueryCommand({
        TableName: search,
        KeyConditionExpression: "pk = :p",
        ExpressionAttributeValues: { ":p": { S: "t#kramatorsk" } },
      }),
    );
    db.destroy();
    expect(entries.Items?.map((i) => i.id?.S)).toEqual(["kramatorsk-station-2022-04-08"]);
    // Again: every incident is already at its version.
    expect((await reindex(env)).code).toBe(0);
  });
});
