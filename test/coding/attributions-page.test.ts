import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { type Answer, call, linked, opened, post, startArchive } from "../support/archive.js";
import { emptyViewsTable } from "../support/empty-views.js";
import { faultyClient } from "../support/faulty-client.js";

let archive: LocalServer;
let db: DynamoDBClient;
const ID = "attributions-page";
const LINKED = "attributions-page-links";
const groups = Array.from({ length: 103 }, (_, i) => `Group ${String(i).padStart(3, "0")}`);
const others = Array.from({ length: 102 }, (_, i) => `attributions-page-${String(i).padStart(3, "0")}`);

const attributed = (name: string, certainty: string) => ({
  type: "AttributionAssessed",
  source: { publisher: "incident-ledger" },
  attributedTo: { name: "editors" },
  data: { perpetrator: { name, side: "state" }, certainty },
});

beforeAll(async () => {
  archive = await startArchive();
  db = createDynamoClient(archive.dynamoEndpoint);
  for (const id of [ID, LINKED, ...others]) expect((await post(archive.url, id, opened())).status).toBe(201);
  // More perpetrators than the state keeps (100); the first, which it no longer keeps, assessed again.
  for (let i = 0; i < groups.length; i += 25) {
    const events = groups.slice(i, i + 25).map((name) => attributed(name, "low"));
    expect((await post(archive.url, ID, { events })).status).toBe(201);
  }
  expect((await post(archive.url, ID, attributed(groups[0] as string, "high"))).status).toBe(201);
  // And more links than it keeps.
  for (let i = 0; i < others.length; i += 25) {
    const events = others.slice(i, i + 25).map((id) => linked(id, "related"));
    expect((await post(archive.url, LINKED, { events })).status).toBe(201);
  }
  await archive.stream.idle();
});
afterAll(async () => {
  db?.destroy();
  await archive?.close();
});

type Row = { eventId: string; version: number; perpetrator: { name: string }; certainty: string };

async function pages(path: string, limit: number): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const answer: Answer = await call(
      archive.url,
      "GET",
      `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.items.length).toBeLessThanOrEqual(limit);
    rows.push(...answer.body.items);
    cursor = answer.body.nextCursor;
  }
  return rows;
}

describe("GET /incidents/{id}/attributions", () => {
  it("pages each perpetrator's current assessment past the summary's 100, the most recent first", async () => {
    const summary = (await call(archive.url, "GET", `/incidents/${ID}`)).body;
    expect(summary.attributions.count).toBe(104);
    expect(summary.attributions.latest).toHaveLength(100);
    const rows = await pages(`/incidents/${ID}/attributions`, 40);
    expect(rows).toHaveLength(103);
    expect(new Set(rows.map((r) => r.perpetrator.name)).size).toBe(103);
    expect(rows.slice(0, 100)).toEqual(summary.attributions.latest);
    // The perpetrator assessed again shows its latest assessment, once, first.
    expect(rows[0]).toMatchObject({ perpetrator: { name: groups[0] }, certainty: "high" });
    // The two the state no longer keeps are there, the oldest last.
    expect(rows.slice(-2).map((r) => r.perpetrator.name)).toEqual([groups[2], groups[1]]);
    const versions = rows.map((r) => r.version);
    expect(versions).toEqual([...versions].sort((a, b) => b - a));
  });

  it("given the views table emptied, when the rebuild runs, then the attributions and links pages are whole again", async () => {
    const before = {
      attributions: await pages(`/incidents/${ID}/attributions`, 100),
      links: await pages(`/incidents/${LINKED}/links`, 100),
    };
    expect(before.links).toHaveLength(102);
    await emptyViewsTable(db, archive.tables.views);
    const report = await repairViews({ ...archive.ledger, log: silentLogger });
    expect(report.failed).toEqual([]);
    expect(await pages(`/incidents/${ID}/attributions`, 100)).toEqual(before.attributions);
    expect(await pages(`/incidents/${LINKED}/links`, 100)).toEqual(before.links);
  });

  it("given an index write that fails during a rebuild, then its views are not written, and a rerun makes the pages whole", async () => {
    const before = {
      attributions: await pages(`/incidents/${ID}/attributions`, 100),
      links: await pages(`/incidents/${LINKED}/links`, 100),
    };
    await emptyViewsTable(db, archive.tables.views);
    let crashed = 0;
    const faulty = faultyClient(archive.dynamoEndpoint, ({ command, table }) =>
      command === "UpdateItemCommand" && table === archive.tables.views && crashed++ === 0
        ? "crash-before"
        : "none",
    );
    const first = await repairViews({
      ...createLedger({ db: faulty, tables: archive.tables, log: silentLogger }),
      log: silentLogger,
    });
    faulty.destroy();
    expect(first.failed.length).toBeGreaterThan(0);
    const again = await repairViews({ ...archive.ledger, log: silentLogger });
    expect(again.failed).toEqual([]);
    expect(again.built).toBe(first.failed.length);
    expect(await pages(`/incidents/${ID}/attributions`, 100)).toEqual(before.attributions);
    expect(await pages(`/incidents/${LINKED}/links`, 100)).toEqual(before.links);
  });

  it("is 404 for an unknown incident, and 400 for a cursor it did not give", async () => {
    expect((await call(archive.url, "GET", "/incidents/no-such-incident/attributions")).status).toBe(404);
    expect((await call(archive.url, "GET", `/incidents/${ID}/attributions?cursor=abc`)).status).toBe(400);
  });
});
