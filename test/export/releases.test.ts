import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseVerifierKey } from "../../events/transparency/note.js";
import type { LocalServer } from "../../functions/local/server.js";
import { rebuildRelease } from "../../scripts/verify/rebuild-exports.js";
import { call, casualties, post, startArchive, TOKEN } from "../support/archive.js";
import { loadSample, SAMPLE, text, waitForCheckpoint } from "./export-kit.js";

let archive: LocalServer;
let base: string;
const logKey = async () => parseVerifierKey(((await call(base, "GET", "/log/vkey")).body as string).trim());
/** The archive's public origin (LEDGER_PUBLIC_URL's local default): links are built on it, not on Host. */
let origin: string;

beforeAll(async () => {
  archive = await startArchive();
  base = archive.url;
  origin = base.replace("127.0.0.1", "localhost");
});
afterAll(() => archive?.close());

const release = (body: unknown, headers: Record<string, string> = {}) =>
  call(base, "POST", "/releases", body, headers);

describe("releases", () => {
  it("cannot name the empty tree (the checkpoint signed at start, before any event)", async () => {
    const answer = await release({ name: "too-early", note: "" });
    expect(answer.status).toBe(409);
    expect(answer.headers.get("content-type")).toBe("application/problem+json");
    expect((await call(base, "GET", "/releases")).body).toEqual({ items: [] });
  });

  it("names the latest checkpoint, lists it with export links and a citation line, and refuses its name again", async () => {
    await loadSample(base);
    const checkpoint = await waitForCheckpoint(archive, SAMPLE.length);
    const created = await release({ name: "2026-11-sample", note: "The AP sample of 8 April 2022" });
    expect(created.status).toBe(201);
    const r = created.body;
    expect(r).toMatchObject({
      number: 1,
      name: "2026-11-sample",
      note: "The AP sample of 8 April 2022",
      treeSize: checkpoint.size,
      root: checkpoint.root,
      checkpoint: checkpoint.text,
      createdBy: "test-writer",
    });
    expect(created.headers.get("location")).toBe(`${origin}/releases/2026-11-sample`);
    expect(r.links.incidentsCsv).toBe(`${origin}/export/incidents.csv?treeSize=${checkpoint.size}`);
    expect(r.links.eventsNdjson).toBe(`${origin}/export/events.ndjson?treeSize=${checkpoint.size}`);
    expect(r.citation).toBe(
      `incident-ledger release 2026-11-sample, tree size ${checkpoint.size}, root ${checkpoint.root}, ${origin}/releases/2026-11-sample`,
    );
    expect(Date.parse(r.createdAt)).not.toBeNaN();

    const again = await release({ name: "2026-11-sample", note: "twice" });
    expect(again.status).toBe(409);
    expect(again.body.errors).toEqual([{ path: "name", message: expect.any(String) }]);

    const listed = await call(base, "GET", "/releases");
    expect(listed.body.items).toEqual([r]);
    expect((await call(base, "GET", "/releases/2026-11-sample")).body).toEqual(r);
    expect((await call(base, "GET", "/releases/nope")).status).toBe(404);
  });

  it("refuses writers without the token, and bodies that are not a release, storing nothing", async () => {
    const before = (await call(base, "GET", "/releases")).body.items.length;
    const noToken = await fetch(`${base}/releases`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "anonymous", note: "" }),
    });
    expect(noToken.status).toBe(401);
    expect((await release({ name: "x", note: "" }, { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await release("{not json")).status).toBe(400);
    const invalid = await release({ name: "has space", note: 5, extra: true });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({
      type: "/docs#problem-invalid-release",
      title: "The release is not valid",
    });
    expect(invalid.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      "extra",
      "name",
      "note",
    ]);
    expect((await call(base, "GET", "/releases")).body.items.length).toBe(before);
  });

  it("is rebuilt byte for byte from the feed, before and after the archive grows", async () => {
    const first = await rebuildRelease(base, "2026-11-sample", await logKey());
    expect(first.rootOk).toBe(true);
    expect(first.checkpointOk).toBe(true);
    expect(first.exports.map((e) => [e.file, e.ok])).toEqual([
      ["incidents.csv", true],
      ["events.ndjson", true],
      ["ucdp-ged.csv", true],
      ["acled.csv", true],
    ]);
    expect(first.exports[0]?.rebuiltBytes).toBeGreaterThan(500);

    await post(
      base,
      "kramatorsk-station-2022-04-08",
      casualties({ killed: { value: 57, qualifier: "exact" } }, "Police"),
    );
    await waitForCheckpoint(archive, SAMPLE.length + 1);
    const later = await rebuildRelease(base, "2026-11-sample", await logKey());
    expect(later).toEqual(first);
    // The incident page cites the version the release holds (15), not the newer one (16).
    const page = await text(base, "/view/kramatorsk-station-2022-04-08");
    const release = (await call(base, "GET", "/releases/2026-11-sample")).body;
    expect(page.body).toContain(
      `Cite: <bdi>Missile strike on Kramatorsk railway station (incident kramatorsk-station-2022-04-08, version 15), incident-ledger release 2026-11-sample, tree size ${release.treeSize}, root ${release.root}, ${origin}/view/kramatorsk-station-2022-04-08?version=15</bdi>`,
    );
  });

  it("reports an export that differs from what the feed rebuilds", async () => {
    // A server whose CSV differs by one byte (as an edited export would): the rebuild must say so.
    const tampering: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      if (!String(input).includes("/export/incidents.csv")) return answer;
      const body = (await answer.text()).replace("kramatorsk", "kramatorsX");
      return new Response(body, { status: answer.status, headers: answer.headers });
    };
    const report = await rebuildRelease(base, "2026-11-sample", await logKey(), tampering);
    expect(report.ok).toBe(false);
    expect(report.exports.find((e) => e.file === "incidents.csv")?.ok).toBe(false);
    expect(report.exports.find((e) => e.file === "events.ndjson")?.ok).toBe(true);
  });

  it("npm run release names the latest checkpoint from the command line", async () => {
    const run = promisify(execFile);
    const { stdout } = await run(
      "npx",
      ["tsx", "scripts/release.ts", "--name", "cli-release", "--note", "from the CLI"],
      {
        env: { ...process.env, LEDGER_URL: base, LEDGER_TOKEN: TOKEN },
      },
    );
    expect(stdout).toContain("cite:   incident-ledger release cli-release, tree size");
    const listed = (await call(base, "GET", "/releases")).body.items;
    expect(listed.map((r: { name: string; number: number }) => [r.name, r.number])).toEqual([
      ["2026-11-sample", 1],
      ["cli-release", 2],
    ]);
    const csv = await text(base, listed[1].links.incidentsCsv.slice(base.length));
    expect(csv.status).toBe(200);
  });
});
