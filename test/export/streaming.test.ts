import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exporter } from "../../functions/export/exports.js";
import { FeedReader } from "../../functions/export/feed-reader.js";
import type { LeafRecord, LogReader } from "../../functions/export/log-reader.js";
import { exportRoutes } from "../../functions/http/routes/exports.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";
import { seedArchive } from "./seed-archive.js";

/**
 * The exports stream: a client that stops reading stops the server reading the log, so memory
 * is bounded by a chunk of leaves and the socket's buffers, never by the archive. Checked by
 * counting the leaves the export has pulled from the (real) log table while the client waits.
 */
const INCIDENTS = 50;
const PER_INCIDENT = 100;
const EVENTS = INCIDENTS * PER_INCIDENT;

let archive: LocalServer;
let server: ReturnType<typeof serve>;
let base: string;
let leavesRead = 0;
const db = { client: undefined as ReturnType<typeof createDynamoClient> | undefined };

beforeAll(async () => {
  archive = await startArchive();
  // ~12 KB a statement: the NDJSON (≈ 30 MB) is far larger than any socket buffer between us.
  const seeded = await seedArchive(archive, {
    incidents: INCIDENTS,
    eventsPerIncident: PER_INCIDENT,
    quoteLength: 12000,
  });
  expect(seeded.size).toBe(EVENTS);
  const log = archive.ledger.logStore;
  const counting: LogReader = {
    latestCheckpoint: () => log.latestCheckpoint(),
    async *leaves(from: number, to: number): AsyncGenerator<LeafRecord> {
      for await (const leaf of log.leaves(from, to)) {
        leavesRead += 1;
        yield leaf;
      }
    },
  };
  db.client = createDynamoClient(archive.dynamoEndpoint);
  const feed = new FeedReader(db.client, archive.tables.events, counting);
  const app = new Hono().route(
    "/",
    exportRoutes({ exporter: new Exporter(feed, counting, archive.ledger.reader), logReader: counting }),
  );
  server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 180_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  db.client?.destroy();
  await archive?.close();
});

/** Waits until the count stops moving (the server is blocked on back-pressure, or done). */
async function settledCount(): Promise<number> {
  let last = -1;
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 150));
    if (leavesRead === last) return last;
    last = leavesRead;
  }
  return leavesRead;
}

describe("streamed exports on a large archive", () => {
  it("events.ndjson stops reading the log while the client does not read, then delivers every event", async () => {
    leavesRead = 0;
    const answer = await fetch(`${base}/export/events.ndjson`);
    expect(answer.headers.get("content-length")).toBeNull();
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    const whilePaused = await settledCount();
    expect(whilePaused).toBeGreaterThan(0);
    expect(whilePaused).toBeLessThan(EVENTS / 2);

    let bytes = first.value?.length ?? 0;
    let lines = 0;
    const count = (chunk: Uint8Array) => {
      for (const byte of chunk) if (byte === 10) lines += 1;
    };
    count(first.value as Uint8Array);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.length;
      count(value);
    }
    expect(lines).toBe(EVENTS);
    expect(bytes).toBeGreaterThan(EVENTS * 1000);
    expect(leavesRead).toBe(EVENTS);
  });

  it("incidents.csv gives every incident a row, in id order", async () => {
    const csv = await (await fetch(`${base}/export/incidents.csv`)).text();
    const rows = csv.split("\r\n").filter((line) => line !== "");
    expect(rows).toHaveLength(INCIDENTS + 1);
    expect(rows[1]?.startsWith(`seeded-000000,${PER_INCIDENT},`)).toBe(true);
  });
});
