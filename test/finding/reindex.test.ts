import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, startArchive } from "../support/archive.js";
import { runScript } from "../support/run-script.js";
import { listed, loadSample } from "./finding-kit.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await loadSample(archive);
  // A publisher the summary does not list (it keeps a statement's speaker, not its outlet).
  await call(archive.url, "POST", "/incidents/kramatorsk-station-2022-04-08/events", {
    type: "StatementMade",
    source: { publisher: "Reindex Gazette" },
    attributedTo: { name: "A Spokesperson" },
    data: { quote: "We are looking into it.", stance: "neutral" },
  });
  // Quotes the summary's latest ten no longer show: one said, one said and then retracted.
  const said = (eventId: string, quote: string) => ({
    eventId,
    type: "StatementMade",
    source: { publisher: "Reindex Gazette" },
    attributedTo: { name: "A Spokesperson" },
    data: { quote, stance: "neutral" },
  });
  await call(archive.url, "POST", "/incidents/kramatorsk-station-2022-04-08/events", {
    events: [
      said("reindex-quokka", "A quokka was seen on the platform."),
      said("reindex-narwhal", "A narwhal, said a misheard caller."),
      {
        type: "ReportRetracted",
        source: { publisher: "Reindex Gazette" },
        attributedTo: { name: "A Spokesperson" },
        data: { targetEventId: "reindex-narwhal", reason: "misheard" },
      },
      ...Array.from({ length: 11 }, (_, i) => said(`reindex-later-${i}`, `Later words ${i}.`)),
    ],
  });
  await archive.stream.idle();
});
afterAll(() => archive.close());

function reindex(env: Record<string, string>) {
  return runScript("scripts/reindex.ts", [], env);
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
    const outlet = await db.send(
      new QueryCommand({
        TableName: search,
        KeyConditionExpression: "pk = :p",
        ExpressionAttributeValues: { ":p": { S: "s#Reindex Gazette" } },
      }),
    );
    // A quote older than the summary's latest ten is found, a retracted one is not.
    expect(await listed(db, search, "t#quokka")).toEqual(["kramatorsk-station-2022-04-08"]);
    expect(await listed(db, search, "t#narwhal")).toEqual([]);
    db.destroy();
    expect(entries.Items?.map((i) => i.id?.S)).toEqual(["kramatorsk-station-2022-04-08"]);
    // Found through the events the summary no longer shows, as the projector indexed it.
    expect(outlet.Items?.map((i) => i.id?.S)).toEqual(["kramatorsk-station-2022-04-08"]);
    // Again: every incident is already at its version.
    expect((await reindex(env)).code).toBe(0);
  });
});
