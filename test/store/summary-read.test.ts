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
