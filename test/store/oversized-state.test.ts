import { randomBytes } from "node:crypto";
import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { snapshotKey } from "../../functions/store/view-items.js";
import { call, opened, post, startArchive } from "../support/archive.js";

/**
 * An incident whose fold state passes DynamoDB's 400 KB item however it is packed: fifty
 * sources, each reporting 50 of its 64 categories twice with 500 characters of words no
 * compression shortens. Every post is within the API's limits, so the archive must go on
 * serving it: its summary read from the view, its words found, its snapshot skipped.
 */

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const ID = "oversized-state-2024";
const SOURCES = 50;
const categories = Array.from(
  { length: 64 },
  (_, i) => `cat${"ABC"[Math.floor(i / 26)]}${"abcdefghijklmnopqrstuvwxyz"[i % 26]}`,
);
const words = () => randomBytes(375).toString("base64");

const report = (source: number, round: number) => ({
  type: "CasualtiesReported",
  source: { publisher: `Publisher ${source}` },
  attributedTo: { name: `Source ${source}` },
  data: {
    figures: Object.fromEntries(
      categories
        .slice(round === 0 ? 0 : 14, round === 0 ? 50 : 64)
        .map((c, i) => [c, { value: source + i, qualifier: "at-least", text: words() }]),
    ),
  },
});

describe("an incident whose fold state passes a store item", () => {
  it("keeps its summary in the view, skips the snapshot, and stays found by search", async () => {
    expect((await post(archive.url, ID, opened())).status).toBe(201);
    const reports = Array.from({ length: SOURCES * 2 }, (_, i) =>
      report(i % SOURCES, Math.floor(i / SOURCES)),
    );
    for (let at = 0; at < reports.length; at += 9) {
      const answer = await post(archive.url, ID, { events: reports.slice(at, at + 9) });
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
    }
    const said = await post(archive.url, ID, {
      type: "StatementMade",
      source: { publisher: "Test Wire" },
      attributedTo: { name: "Regional governor" },
      data: { quote: "The zymurgical survey found nothing", stance: "neutral" },
    });
    expect(said.status).toBe(201);
    const head = SOURCES * 2 + 2;
    await archive.stream.idle();

    const db = createDynamoClient(archive.dynamoEndpoint);
    try {
      const view = await db.send(
        new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: ID } } }),
      );
      expect(view.Item?.version?.N).toBe(String(head));
      expect(view.Item?.state).toBeUndefined();
      expect(view.Item?.summary?.S?.length).toBeGreaterThan(0);
      const snapshot = await db.send(
        new GetItemCommand({
          TableName: archive.tables.views,
          Key: { incidentId: { S: snapshotKey(ID, 100) } },
        }),
      );
      expect(snapshot.Item).toBeUndefined();
    } finally {
      db.destroy();
    }

    const summary = await call(archive.url, "GET", `/incidents/${ID}`);
    expect(summary.body.version).toBe(head);
    expect(Object.keys(summary.body.casualties)).toHaveLength(64);
    const found = await call(archive.url, "GET", "/incidents?q=zymurgical");
    expect(found.body.items.map((s: { incidentId: string }) => s.incidentId)).toEqual([ID]);
    // Its past is folded from the events, as it stood.
    const past = await call(archive.url, "GET", `/incidents/${ID}?version=101`);
    expect(past.body.version).toBe(101);
    expect(past.body.statements.count).toBe(0);
  });
});
