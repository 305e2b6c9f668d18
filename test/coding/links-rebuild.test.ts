import { type DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linksInKey } from "../../functions/editorial/editorial-index.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, linked, opened, post, startArchive } from "../support/archive.js";
import { emptyViewsTable } from "../support/empty-views.js";

let archive: LocalServer;
let db: DynamoDBClient;
const [A, B, C] = ["links-rebuild-a", "links-rebuild-b", "links-rebuild-c"];

beforeAll(async () => {
  archive = await startArchive();
  db = createDynamoClient(archive.dynamoEndpoint);
  for (const id of [A, B, C]) expect((await post(archive.url, id, opened())).status).toBe(201);
  expect((await post(archive.url, A, linked(B, "same-event"))).status).toBe(201);
  expect((await post(archive.url, C, linked(B, "related"))).status).toBe(201);
  // A later link to the same incident replaces the relation, on both sides.
  expect((await post(archive.url, A, linked(B, "duplicate-of"))).status).toBe(201);
  await archive.stream.idle();
});
afterAll(async () => {
  db?.destroy();
  await archive?.close();
});

const indexOf = async (id: string) =>
  (
    await db.send(
      new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: linksInKey(id) } } }),
    )
  ).Item;
const summaryText = async (id: string) => (await fetch(`${archive.url}/incidents/${id}`)).text();

describe("links on both incidents", () => {
  it("given A and C linking B, then B's summary shows both, A's latest relation only", async () => {
    const b = (await call(archive.url, "GET", `/incidents/${B}`)).body;
    expect(b.links.count).toBe(2);
    expect(
      b.links.items.map((l: { incidentId: string; relation: string; direction: string }) => [
        l.incidentId,
        l.relation,
        l.direction,
      ]),
    ).toEqual([
      [A, "duplicate-of", "incoming"],
      [C, "related", "incoming"],
    ]);
    const a = (await call(archive.url, "GET", `/incidents/${A}`)).body;
    expect(a.links).toMatchObject({
      count: 1,
      items: [{ incidentId: B, relation: "duplicate-of", direction: "outgoing" }],
    });
  });

  it("given the views table emptied, when the rebuild runs, then B's index and summary are the same as before", async () => {
    const before = { index: await indexOf(B), b: await summaryText(B), a: await summaryText(A) };
    expect(before.index?.links?.M).toBeDefined();
    await emptyViewsTable(db, archive.tables.views);
    expect(await indexOf(B)).toBeUndefined();
    const report = await repairViews({ ...archive.ledger, log: silentLogger });
    expect(report.failed).toEqual([]);
    expect(await indexOf(B)).toEqual(before.index);
    expect(await summaryText(B)).toBe(before.b);
    expect(await summaryText(A)).toBe(before.a);
  });
});
