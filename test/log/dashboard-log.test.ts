import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, startArchive } from "../support/archive.js";
import { appendEvents, eventsFromApi } from "./log-kit.js";

const ID = "dashboard-log-2024";
let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await appendEvents(archive.url, [ID], 4);
  await archive.sequencing.idle();
});
afterAll(() => archive.close());

describe("the incident page shows the log", () => {
  it("gives each event its leaf index, its checkpoint and links to its proofs; the panel shows the checkpoint", async () => {
    const page = await fetch(`${archive.url}/view/${ID}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const size = (await archive.ledger.logStore.latestCheckpoint())?.size;
    expect(size).toBe(4);
    for (const event of await eventsFromApi(archive.url, [ID])) {
      const proof = await call(archive.url, "GET", `/incidents/${ID}/events/${event.eventId}/proof`);
      const index = proof.body.index as number;
      expect(html).toContain(`data-log-index="${index}"`);
      expect(html).toContain(`leaf #${index}, in checkpoint ${size}`);
      expect(html).toContain(`href="/log/proof/${index}"`);
      expect(html).toContain(`href="/incidents/${ID}/events/${event.eventId}/proof"`);
    }
    expect(html).toContain(`data-log-checkpoint="${size}"`);
    expect(html).toContain("Not cosigned by any witness.");
  });
});
