import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { casualties, envelope, opened, startArchive } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

describe("a batch of events with client ids", () => {
  it("reads the batch's claims in one request, claims each id once, and a resend replays it", async () => {
    const { db, calls } = countedClient(archive.dynamoEndpoint);
    const events = createLedger({ db, tables: archive.tables, log: silentLogger }).events;
    const id = "batch-claims";
    await events.append({
      incidentId: id,
      envelopes: [envelope(opened())],
      recordedBy: "importer",
      batched: false,
    });
    const batch = Array.from({ length: 25 }, (_, i) =>
      envelope(casualties({ killed: { value: i, qualifier: "exact" } }, `Source ${i}`, `batch-claims-${i}`)),
    );
    const request = { incidentId: id, envelopes: batch, recordedBy: "importer", batched: true };
    calls.length = 0;
    const first = await events.append(request);
    expect(first.created).toBe(true);
    const count = (name: string) => calls.filter((c) => c === name).length;
    expect(count("BatchGetItemCommand"), "the batch's claims, read at once").toBe(1);
    // One GetItem: the view, for the cap on categories (this process has not seen the incident's reports); no claim read one by one.
    expect(count("GetItemCommand")).toBe(1);
    expect(count("PutItemCommand"), "25 claims and the commit").toBe(26);

    const again = await events.append(request);
    expect(again.created).toBe(false);
    expect(again.events.map((e) => e.version)).toEqual(first.events.map((e) => e.version));
    db.destroy();
  });
});
