import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

async function allEvents(incidentId: string) {
  const page = await call(archive.url, "GET", `/incidents/${incidentId}/events?limit=500`);
  expect(page.status).toBe(200);
  return page.body.items as { eventId: string; version: number }[];
}

describe("concurrent writers on one incident", () => {
  it("60 appends without If-Match all succeed, gapless, each stored once", async () => {
    const id = "burst-sixty";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        post(
          archive.url,
          id,
          casualties({ killed: { value: i, qualifier: "exact" } }, `source-${i}`, `burst-event-${i}`),
        ),
      ),
    );
    const elapsed = performance.now() - started;
    console.log(`60 concurrent appends to one incident: ${elapsed.toFixed(0)} ms`);
    expect(answers.map((a) => a.status)).toEqual(Array(60).fill(201));
    const acknowledged = answers.map((a) => a.body.events[0].version).sort((a, b) => a - b);
    expect(acknowledged).toEqual(Array.from({ length: 60 }, (_, i) => i + 2));

    const events = await allEvents(id);
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
    const ids = events.slice(1).map((e) => e.eventId);
    expect(new Set(ids).size).toBe(60);
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body.ok).toBe(true);
  });

  it("10 racers with the same If-Match: one 201, nine 409 naming the current version", async () => {
    const id = "racers-ten";
    await post(archive.url, id, opened());
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(archive.url, id, casualties({ killed: { value: i, qualifier: "exact" } }, `racer-${i}`), {
          "If-Match": '"1"',
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(409)]);
    for (const loser of answers.filter((a) => a.status === 409)) {
      expect(loser.headers.get("content-type")).toContain("application/problem+json");
      expect(loser.body.currentVersion).toBe(2);
    }
    expect((await allEvents(id)).map((e) => e.version)).toEqual([1, 2]);
  });

  it('If-Match "0" creates only an incident that does not exist', async () => {
    const id = "if-match-zero";
    expect((await post(archive.url, id, opened(), { "If-Match": '"0"' })).status).toBe(201);
    const again = await post(archive.url, id, opened(), { "If-Match": '"0"' });
    expect(again.status).toBe(409);
    expect(again.body.currentVersion).toBe(1);
  });

  it("a stale cached head on another process's write is re-read, not answered 409", async () => {
    const id = "two-processes";
    await post(archive.url, id, opened());
    // A second archive process on the same store: its head cache knows nothing of ours.
    const { createLedger } = await import("../../functions/ledger.js");
    const { createDynamoClient } = await import("../../functions/store/dynamo-client.js");
    const { silentLogger } = await import("../../functions/logger.js");
    const other = createLedger({
      db: createDynamoClient(archive.dynamoEndpoint),
      tables: archive.tables,
      log: silentLogger,
    });
    const { parseEnvelope } = await import("../../events/validate.js");
    const envelope = parseEnvelope(casualties({ killed: { value: 3, qualifier: "exact" } }, "other-process"));
    if (!envelope.ok) throw new Error("fixture invalid");
    await other.events.append({
      incidentId: id,
      envelopes: [envelope.value],
      recordedBy: "other",
      batched: false,
    });
    const ours = await post(
      archive.url,
      id,
      casualties({ killed: { value: 4, qualifier: "exact" } }, "this-process"),
    );
    expect(ours.status).toBe(201);
    expect(ours.body.version).toBe(3);
  });
});
