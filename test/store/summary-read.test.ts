import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { casualties, opened, post, startArchive, TOKEN } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const editorLink = (otherIncidentId: string) => ({
  type: "IncidentsLinked",
  source: { publisher: "incident-ledger" },
  data: { otherIncidentId, relation: "same-event" },
});

describe("a current summary read", () => {
  it("is one request to the store, the view and the links other incidents posted together", async () => {
    await post(archive.url, "read-once-a", opened());
    await post(archive.url, "read-once-b", opened());
    await post(archive.url, "read-once-b", casualties({ killed: { value: 5, qualifier: "exact" } }));
    const linked = await post(archive.url, "read-once-a", editorLink("read-once-b"), {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(linked.status).toBe(201);
    await archive.stream.idle();

    // A second API process (a Lambda) whose store calls are counted.
    const { db, calls } = countedClient(archive.dynamoEndpoint);
    const reader = createLedger({ db, tables: archive.tables, log: silentLogger }).reader;
    for (const [id, incoming] of [
      ["read-once-b", 1],
      ["read-once-a", 0],
    ] as const) {
      calls.length = 0;
      const found = await reader.summaryJson(id, { at: "current" });
      expect(calls, id).toEqual(["BatchGetItemCommand"]);
      const summary = JSON.parse(found?.json ?? "null");
      expect(summary.incidentId).toBe(id);
      expect(
        (summary.links?.items ?? []).filter((l: { direction: string }) => l.direction === "incoming"),
      ).toHaveLength(incoming);
    }
    db.destroy();
  });
});

describe("a long incident whose lists spilled into pieces", () => {
  it("is assembled once a version: a second read, and a listing page that shows it, read no state and no piece", async () => {
    const id = "read-spilled-2024";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    // Enough long denials that the oldest are sealed into pieces beside the view (events/spill.ts).
    const denials = Array.from({ length: 30 }, (_, i) => ({
      type: "DenialIssued",
      source: { publisher: "Test Wire" },
      attributedTo: { name: `Ministry ${i}` },
      data: { claim: `responsibility for the strike, in words ${"long ".repeat(180)}${i}` },
    }));
    expect((await post(archive.url, id, { events: denials.slice(0, 15) })).status).toBe(201);
    expect((await post(archive.url, id, { events: denials.slice(15) })).status).toBe(201);
    await archive.stream.idle();

    const { db, calls } = countedClient(archive.dynamoEndpoint);
    const reader = createLedger({ db, tables: archive.tables, log: silentLogger }).reader;
    const first = await reader.summaryJson(id, { at: "current" });
    expect(calls.length, "the first read assembles it: the view, its state and its pieces").toBeGreaterThan(
      1,
    );
    expect(JSON.parse(first?.json ?? "null").denials).toHaveLength(30);

    calls.length = 0;
    expect(await reader.summaryJson(id, { at: "current" })).toEqual(first);
    expect(calls).toEqual(["BatchGetItemCommand"]);

    calls.length = 0;
    const page = await reader.list({ limit: 1 });
    expect(page.items.map((s) => s.incidentId)).toEqual([id]);
    expect(JSON.stringify(page.items[0])).toBe(first?.json);
    expect(calls.sort()).toEqual(["BatchGetItemCommand", "BatchGetItemCommand", "QueryCommand"]);

    // A new version is assembled again: the answer is never the older one.
    expect(
      (
        await post(archive.url, id, {
          type: "StatementMade",
          source: { publisher: "Test Wire" },
          attributedTo: { name: "A. Harbourmaster" },
          data: { quote: "The quayside cranes collapsed.", stance: "neutral" },
        })
      ).status,
    ).toBe(201);
    await archive.stream.idle();
    const next = JSON.parse((await reader.summaryJson(id, { at: "current" }))?.json ?? "null");
    expect(next.version).toBe((first?.version ?? 0) + 1);
    expect(next.statements.latest.map((s: { quote: string }) => s.quote)).toContain(
      "The quayside cranes collapsed.",
    );
    db.destroy();
  });
});
