import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call, opened, post, TOKEN } from "../support/archive.js";
import { killHard, startChildServer } from "../support/child-server.js";
import { capture, sha256Of, upload } from "./evidence-kit.js";

const dataDir = mkdtempSync(join(tmpdir(), "ledger-evidence-crash-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const env = { DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN };
const evidenceFiles = () => readdirSync(join(dataDir, "evidence")).sort();

describe("kill -9 and evidence", () => {
  it("during an upload: after restart no half blob under a real name, no temporary file", async () => {
    const first = await startChildServer(env);
    const size = 8 * 1024 * 1024;
    const chunk = new Uint8Array(256 * 1024).fill(42);
    const whole = createHash("sha256");
    for (let sent = 0; sent < size; sent += chunk.length) whole.update(chunk);
    const sha256 = whole.digest("hex");
    const url = new URL(`${first.url}/evidence`);
    let sent = 0;
    const killed = new Promise<void>((resolve) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "video/mp4",
          "content-length": String(size),
        },
      });
      req.on("error", () => resolve());
      req.on("response", () => resolve());
      const pump = () => {
        while (sent < size) {
          sent += chunk.length;
          if (sent >= size / 2) {
            // Half the bytes are in the server's temporary file: the server dies now.
            void killHard(first).then(() => resolve());
            return;
          }
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
      };
      pump();
    });
    await killed;
    const leftover = evidenceFiles();
    expect(leftover).not.toContain(sha256);

    const second = await startChildServer(env);
    try {
      expect(evidenceFiles().filter((f) => f.startsWith("."))).toEqual([]);
      expect(evidenceFiles()).not.toContain(sha256);
      const get = await fetch(`${second.url}/evidence/${sha256}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(get.status).toBe(404);
    } finally {
      await killHard(second);
    }
  });

  it("during captures' appends: every stored capture has its blob whole, every acknowledged one is stored", async () => {
    const first = await startChildServer(env);
    const incidents = Array.from({ length: 4 }, (_, i) => `evidence-crash-${i}`);
    for (const id of incidents) expect((await post(first.url, id, opened())).status).toBe(201);
    const pieces = Array.from({ length: 40 }, (_, i) => `<html>capture ${i}</html>`);
    for (const bytes of pieces) expect((await upload(first.url, bytes)).status).toBe(201);
    const acknowledged: { incidentId: string; eventId: string }[] = [];
    const writes = pieces.map(async (bytes, i) => {
      const incidentId = incidents[i % incidents.length] as string;
      const eventId = `crash-capture-${i}`;
      try {
        const answer = await post(first.url, incidentId, capture(bytes, {}, eventId));
        if (answer.status === 201) acknowledged.push({ incidentId, eventId });
      } catch {
        // the server is gone
      }
    });
    setTimeout(() => void killHard(first), 150);
    await Promise.all(writes);

    const second = await startChildServer(env);
    try {
      const stored = [];
      for (const id of incidents) {
        const events = (await call(second.url, "GET", `/incidents/${id}/events`)).body.items;
        stored.push(...events.filter((e: { type: string }) => e.type === "EvidenceCaptured"));
        expect((await call(second.url, "GET", `/incidents/${id}/verify`)).body.ok).toBe(true);
      }
      const storedIds = new Set(stored.map((e: { eventId: string }) => e.eventId));
      for (const a of acknowledged) expect(storedIds.has(a.eventId), a.eventId).toBe(true);
      for (const event of stored) {
        const got = await fetch(`${second.url}/evidence/${event.data.sha256}`);
        expect(got.status).toBe(200);
        const bytes = new Uint8Array(await got.arrayBuffer());
        expect(sha256Of(bytes)).toBe(event.data.sha256);
        expect(bytes.length).toBe(event.data.size);
      }
      expect(evidenceFiles().filter((f) => f.startsWith("."))).toEqual([]);
    } finally {
      await killHard(second);
    }
  });
});
