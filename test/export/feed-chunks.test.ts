import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { FEED_CHUNK, FEED_COMMITS } from "../../functions/export/feed-reader.js";
import type { LocalServer } from "../../functions/local/server.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";
import { waitForCheckpoint } from "./export-kit.js";

/**
 * events.ndjson is read a chunk of leaves at a time, each chunk's commits in one batch read
 * while the chunk before is still being read: a commit whose events fall on both sides of a
 * chunk's end, and a chunk cut short by its count of distinct commits, still give every event
 * once, in log order.
 */

let archive: LocalServer;
const LONG = "feed-chunks-long";
// One opening, then batches of 25: the batch holding leaf FEED_CHUNK − 1 also holds FEED_CHUNK.
const BATCHES = Math.ceil(FEED_CHUNK / 25) + 1;
// More single-event commits than one chunk may name.
const SHORT = FEED_COMMITS + 5;
const SIZE = 1 + BATCHES * 25 + SHORT;

beforeAll(async () => {
  archive = await startArchive();
  expect((await post(archive.url, LONG, opened("feed-chunks-open"))).status).toBe(201);
  for (let b = 0; b < BATCHES; b++) {
    const events = Array.from({ length: 25 }, (_, i) =>
      casualties(
        { killed: { value: b * 25 + i, qualifier: "exact" } },
        `Speaker ${i}`,
        `feed-chunks-${b}-${i}`,
      ),
    );
    expect((await call(archive.url, "POST", `/incidents/${LONG}/events`, { events })).status).toBe(201);
  }
  for (let s = 0; s < SHORT; s++) {
    expect((await post(archive.url, `feed-chunks-short-${s}`, opened(`feed-chunks-short-${s}`))).status).toBe(
      201,
    );
  }
  await waitForCheckpoint(archive, SIZE);
}, 120_000);
afterAll(() => archive?.close());

describe("events.ndjson across chunks", () => {
  it("gives every event once, in log order, as the feed does", async () => {
    const response = await fetch(`${archive.url}/export/events.ndjson?treeSize=${SIZE}`);
    expect(response.status).toBe(200);
    const lines = (await response.text()).split("\n").filter((line) => line !== "");
    const exported = lines.map((line) => (JSON.parse(line) as StoredEvent).eventId);
    const fed: string[] = [];
    for (let after = -1; ; ) {
      const page = await call(archive.url, "GET", `/feed?after=${after}&limit=500`);
      fed.push(...page.body.items.map((item: { event: StoredEvent }) => item.event.eventId));
      if (page.body.next === null) break;
      after = page.body.next;
    }
    expect(exported).toHaveLength(SIZE);
    expect(new Set(exported).size).toBe(SIZE);
    expect(exported).toEqual(fed.slice(0, SIZE));
    // The batch that holds the first chunk's last leaf and the next chunk's first.
    const batch = Math.floor((FEED_CHUNK - 1 - 1) / 25);
    expect(exported[FEED_CHUNK - 1]).toMatch(new RegExp(`^feed-chunks-${batch}-`));
    expect(exported[FEED_CHUNK]).toMatch(new RegExp(`^feed-chunks-${batch}-`));
  });
});
