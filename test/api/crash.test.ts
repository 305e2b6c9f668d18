import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, casualties, opened, post, TOKEN } from "../support/archive.js";
import { killHard, startChildServer } from "../support/child-server.js";

const dataDir = mkdtempSync(join(tmpdir(), "ledger-crash-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("kill -9 in the middle of a burst", () => {
  it("loses no acknowledged event; the chain verifies and views catch up after restart", async () => {
    const env = { DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN };
    const first = await startChildServer(env);
    const incidents = Array.from({ length: 6 }, (_, i) => `crash-incident-${i}`);
    for (const id of incidents) expect((await post(first.url, id, opened())).status).toBe(201);

    const acknowledged = new Map<string, { incidentId: string; version: number }>();
    let sent = 0;
    let refused = 0;
    const writer = async (w: number) => {
      for (let i = 0; i < 400; i++) {
        const incidentId = incidents[(w + i) % incidents.length] as string;
        const eventId = `crash-w${w}-e${i}`;
        sent += 1;
        try {
          const answer = await post(
            first.url,
            incidentId,
            casualties({ killed: { value: i, qualifier: "exact" } }, `w${w}`, eventId),
          );
          if (answer.status === 201 || answer.status === 200)
            acknowledged.set(eventId, { incidentId, version: answer.body.events[0].version });
        } catch {
          refused += 1;
          return; // the server is gone
        }
      }
    };
    const burst = Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    // Kill once enough is acknowledged that a loss would show, whatever the machine's speed;
    // the writers are still sending then, so the kill lands mid-burst.
    const deadline = Date.now() + 20_000;
    while (acknowledged.size < 30 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await killHard(first);
    await burst;
    console.log(
      `crash test: ${sent} sent, ${acknowledged.size} acknowledged before SIGKILL, ${refused} writers cut off`,
    );
    expect(acknowledged.size).toBeGreaterThan(20);

    const second = await startChildServer(env);
    try {
      let stored = 0;
      for (const id of incidents) {
        const items: { eventId: string; version: number }[] = [];
        let after = 0;
        for (;;) {
          const page = await call(second.url, "GET", `/incidents/${id}/events?after=${after}&limit=500`);
          items.push(...page.body.items);
          if (page.body.next === null) break;
          after = page.body.next;
        }
        stored += items.length - 1;
        expect(items.map((e) => e.version)).toEqual(items.map((_, i) => i + 1));
        expect(new Set(items.map((e) => e.eventId)).size).toBe(items.length);
        const byId = new Map(items.map((e) => [e.eventId, e.version]));
        for (const [eventId, ack] of acknowledged) {
          if (ack.incidentId === id)
            expect(byId.get(eventId), `acknowledged ${eventId} lost`).toBe(ack.version);
        }
        const verify = await call(second.url, "GET", `/incidents/${id}/verify`);
        expect(verify.body.ok).toBe(true);
        // Caught up at start: the view already agrees with the store, without minVersion.
        const summary = await call(second.url, "GET", `/incidents/${id}`);
        expect(summary.body.version).toBe(items.length);
      }
      console.log(`crash test: ${stored} stored after restart (≥ ${acknowledged.size} acknowledged), 0 lost`);
      expect(stored).toBeGreaterThanOrEqual(acknowledged.size);
      // Retrying what was in flight stores each event once.
      const retry = await post(
        second.url,
        "crash-incident-0",
        casualties({ killed: { value: 0, qualifier: "exact" } }, "w0", "crash-w0-e0"),
      );
      expect(retry.status).toBe(acknowledged.has("crash-w0-e0") ? 200 : 201);
    } finally {
      await killHard(second);
    }
  });
});
