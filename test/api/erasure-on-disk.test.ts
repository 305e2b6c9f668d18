import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { AP, call, opened, post, TOKEN } from "../support/archive.js";
import { filesHolding } from "../support/files-holding.js";

/**
 * An erasure on a local archive kept on disk (DATA_DIR) takes the value out of the store's files
 * by the time it is answered: LevelDB would otherwise keep the rewritten pack's old version in its
 * log and tables until it compacted them on its own, readable by whoever holds the laptop.
 */
const READER = "restricted-reader-token-0123";
const ID = "erasure-on-disk";
let dataDir: string;
let archive: LocalServer;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "ledger-erasure-"));
  archive = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    dataDir,
    token: TOKEN,
    log: silentLogger,
    writer: "test-writer",
    users: [{ name: "Rita Reader", token: READER, roles: ["restricted-reader"] }],
  });
  expect((await post(archive.url, ID, opened())).status).toBe(201);
});
afterAll(async () => {
  await archive?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const disclosures = async (eventId: string) =>
  (
    await call(archive.url, "GET", `/incidents/${ID}/events/${eventId}/disclosures`, undefined, {
      authorization: `Bearer ${READER}`,
    })
  ).body.items as { pointer: string; disclosure: string }[];

describe("erasing on a local archive kept on disk", () => {
  it("leaves no copy of the erased value in DATA_DIR's files; the other values stay served", async () => {
    const recorded = await post(archive.url, ID, {
      eventId: "disk-victims",
      type: "VictimsRecorded",
      source: AP,
      attributedTo: { name: "Regional registry" },
      data: { victims: [{ name: "Oksana Erasable", age: 41 }, { name: "Taras Kept" }] },
    });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(201);
    const before = await disclosures("disk-victims");
    const erased = before.find((d) => d.pointer === "/data/victims/0/name")?.disclosure ?? "";
    // A disclosure opens with its random salt (base64url of `["<salt>",…`): these characters are
    // this value's alone, and stay whole in LevelDB's files (nothing repeats them to compress).
    const needle = erased.slice(0, 28);
    expect(needle).toHaveLength(28);
    expect(filesHolding(dataDir, needle)).not.toEqual([]);

    const redaction = await post(archive.url, ID, {
      eventId: "disk-erasure",
      type: "RedactionApplied",
      source: { publisher: "incident-ledger" },
      attributedTo: { name: "Archive editors" },
      data: {
        targetEventId: "disk-victims",
        pointers: ["/data/victims/0/name"],
        effect: "erased",
        reason: "data-subject-request",
      },
    });
    expect(redaction.status, JSON.stringify(redaction.body)).toBe(201);

    expect(filesHolding(dataDir, needle)).toEqual([]);
    const after = await disclosures("disk-victims");
    expect(after.map((d) => d.pointer).sort()).toEqual(["/data/victims/0/age", "/data/victims/1/name"]);
    expect((await call(archive.url, "GET", `/incidents/${ID}/verify`)).body).toMatchObject({ ok: true });
  });

  it("leaves no copy of a refused append's values in DATA_DIR's files", async () => {
    const kept = {
      eventId: "disk-kept",
      type: "VictimsRecorded",
      source: AP,
      attributedTo: { name: "Regional registry" },
      data: { victims: [{ name: "Iryna Stored" }] },
    };
    const stored = await post(archive.url, ID, kept);
    expect(stored.status).toBe(201);
    // Sealed and written, then refused: the incident has moved past the version this writer read.
    // Posted without an eventId, so no retry can rely on the values: they go at once (a client's
    // eventId keeps them for its retry until the orphan sweep).
    const refusedName = "Mykola Never-Recorded";
    const { eventId: _, ...unnamed } = kept;
    const stale = { "if-match": `"${stored.body.version - 1}"` };
    const refused = await post(
      archive.url,
      ID,
      { ...unnamed, data: { victims: [{ name: refusedName }] } },
      stale,
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(JSON.stringify(refused.body)).not.toContain(refusedName);
    // A value is kept as base64url of `["<salt>","<value>"]`: the name is found at any of the three
    // alignments a base64 text can put it at.
    expect(base64Alignments(refusedName).flatMap((needle) => filesHolding(dataDir, needle))).toEqual([]);
    expect(base64Alignments("Iryna Stored").flatMap((needle) => filesHolding(dataDir, needle))).not.toEqual(
      [],
    );
    expect((await disclosures("disk-kept")).map((d) => d.pointer)).toEqual(["/data/victims/0/name"]);
  });
});

/** The base64url texts of `text` at each of the three byte offsets it can start at, edges cut. */
function base64Alignments(text: string): string[] {
  const bytes = Buffer.from(text);
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64url");
    const whole = Math.floor((offset + bytes.length) / 3) * 4;
    return encoded.slice(offset === 0 ? 0 : 4, whole);
  });
}
