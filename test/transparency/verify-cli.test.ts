import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMPTY_HEAD, type StoredEvent, sealEvents } from "../../events/stored-event.js";
import { opened, statement } from "../../events/test-kit.js";
import { hashLeaf } from "../../events/transparency/merkle.js";
import { formatProofFile } from "../../events/transparency/proof-file.js";
import { parseTilePath } from "../../events/transparency/tiles.js";
import { runVerify } from "../support/run-verify.js";
import { MemoryArchive, testLogKey } from "./memory-log.js";

// The CLI over HTTP: the contract's routes served from an archive in memory, so that the wiring
// (arguments, fetch, state file, exit codes) is tested apart from the server.
describe("npm run verify (the CLI)", () => {
  const log = testLogKey();
  const archive = new MemoryArchive(log.signer);
  const all: StoredEvent[] = sealEvents(
    EMPTY_HEAD,
    [opened("cli-opened"), statement("cli-s2", "a"), statement("cli-s3", "b")],
    { incidentId: "cli-incident", recordedBy: "w", now: "2026-11-30T12:00:00.000Z", newEventId: String },
  );
  let server: Server;
  let url: string;
  const dir = mkdtempSync(join(tmpdir(), "verify-cli-"));

  beforeAll(async () => {
    archive.append(all);
    await archive.sign();
    server = createServer(async (req, res) => {
      const u = new URL(req.url ?? "/", "http://x");
      const send = (status: number, body: string | Uint8Array) => {
        res.writeHead(status);
        res.end(body);
      };
      try {
        if (u.pathname === "/log/checkpoint") return send(200, await archive.checkpoint());
        if (u.pathname === "/log/consistency") {
          const proof = await archive.consistency(
            Number(u.searchParams.get("from")),
            Number(u.searchParams.get("to")),
          );
          return send(200, JSON.stringify({ proof: proof.map((h) => Buffer.from(h).toString("base64")) }));
        }
        const tile = parseTilePath(u.pathname.replace(/^\/log\//, ""));
        if (tile?.kind === "entries") return send(200, await archive.entries(tile));
        if (tile?.kind === "hash") return send(200, await archive.tile(tile));
        if (u.pathname === "/feed") {
          const page = await archive.feed(
            Number(u.searchParams.get("after")),
            Number(u.searchParams.get("limit")),
          );
          return send(200, JSON.stringify(page));
        }
        const m = /^\/incidents\/([^/]+)\/events$/.exec(u.pathname);
        if (m)
          return send(
            200,
            JSON.stringify(await archive.events(m[1] as string, Number(u.searchParams.get("after")))),
          );
        send(404, "");
      } catch (e) {
        send(500, String(e));
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("exits 0 and writes the state; after a fork at the same size, exits 1 naming it and keeps the state", async () => {
    const state = join(dir, "state.json");
    const ok = await runVerify(["--url", url, "--vkey", log.vkey, "--state", state]);
    expect(ok.stderr).toContain("signature verified");
    expect(ok.stdout).toMatch(
      /^OK localhost\/incident-ledger: tree size 3, 3 leaves, 1 incidents, 3 events verified; \d+ bytes downloaded/,
    );
    expect(ok.code).toBe(0);
    const remembered = JSON.parse(readFileSync(state, "utf8"));
    expect(remembered.size).toBe(3);

    await archive.sign({ root: hashLeaf(new Uint8Array([7])) });
    const forked = await runVerify(["--url", url, "--vkey", log.vkey, "--state", state]);
    expect(forked.code).toBe(1);
    expect(forked.stderr).toMatch(/FAIL: fork: checkpoint root .* at size 3 differs from the remembered/);
    expect(JSON.parse(readFileSync(state, "utf8"))).toEqual(remembered);
    await archive.sign();
  });

  it("catches up with --incremental from the state, reading only what is new", async () => {
    const state = join(dir, "incremental.json");
    expect((await runVerify(["--url", url, "--vkey", log.vkey, "--state", state, "--quiet"])).code).toBe(0);
    const more = sealEvents(
      { version: 3, hash: (all[2] as StoredEvent).hash, recordedAt: null },
      [statement("cli-s4", "c")],
      { incidentId: "cli-incident", recordedBy: "w", now: "2026-11-30T12:00:01.000Z", newEventId: String },
    );
    archive.append(more);
    await archive.sign();
    const run = await runVerify(["--url", url, "--vkey", log.vkey, "--state", state, "--incremental"]);
    expect(run.stdout).toMatch(
      /tree size 4 \(was 3 at the last run\), 1 leaves, 1 incidents, 1 events verified/,
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(readFileSync(state, "utf8")).heads).toEqual({
      "cli-incident": { version: 4, hash: (more[0] as StoredEvent).hash },
    });
  });

  it("checks one event offline from a proof file and the vkey in a file", async () => {
    const proof = join(dir, "event.tlog-proof");
    writeFileSync(
      proof,
      formatProofFile({ index: 1, inclusion: await archive.inclusion(1), checkpoint: archive.note }),
    );
    const eventFile = join(dir, "event.json");
    writeFileSync(eventFile, JSON.stringify(all[1]));
    const vkeyFile = join(dir, "log.vkey");
    writeFileSync(vkeyFile, `${log.vkey}\n`);
    const ok = await runVerify(["--proof", proof, "--event", eventFile, "--vkey", vkeyFile]);
    expect(ok.stdout).toMatch(/^OK incident cli-incident version 2 \(event cli-s2\) is leaf 1/);
    expect(ok.code).toBe(0);
    writeFileSync(eventFile, JSON.stringify(all[2]));
    const wrong = await runVerify(["--proof", proof, "--event", eventFile, "--vkey", vkeyFile]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/FAIL: incident cli-incident version 3: not included at index 1/);
  });

  it("exits 2 on a usage error", async () => {
    const r = await runVerify(["--vkey", log.vkey]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage:");
  });

  it("exits 2 naming a URL or key it cannot use, and 1 saying why a server cannot be reached", async () => {
    const usage = [
      [["--url", "not-a-url", "--vkey", log.vkey], "--url not-a-url is not an absolute URL"],
      [["--url", url, "--vkey", join(dir, "missing.vkey")], "no such file, and not a verifier key"],
      [["--url", url, "--vkey", "name+garbage"], "--vkey "],
      [["--url", url, "--url", "http://elsewhere.example", "--vkey", log.vkey], "--url is given twice"],
      // Tokens are checked against the checkpoints the key verifies: never silently skipped.
      [["--url", url, "--evidence", "--tsa-ca", join(dir, "ca.pem")], "--tsa-ca needs --vkey"],
      [["--url", url, "--vkey", log.vkey, "--tsa-ca", join(dir, "missing.pem")], "missing.pem: no such file"],
      [["--url", url, "--vkey", log.vkey, "--tsa-ca", join(dir, "not-a-ca.pem")], "holds no PEM certificate"],
    ] as const;
    writeFileSync(join(dir, "not-a-ca.pem"), "not a certificate\n");
    for (const [args, message] of usage) {
      const r = await runVerify([...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(message);
    }
    // A port nothing listens on: one a server just had and gave back.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const unreachable = await runVerify(["--url", `http://127.0.0.1:${port}`, "--vkey", log.vkey]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/fetch failed: .*ECONNREFUSED/);
  });

  it("says so when the state file holds no earlier checkpoint, then remembers this one", async () => {
    const state = join(dir, "empty-state.json");
    writeFileSync(state, "\n");
    const r = await runVerify(["--url", url, "--vkey", log.vkey, "--state", state]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`note: ${state} holds no earlier checkpoint`);
    expect(JSON.parse(readFileSync(state, "utf8")).size).toBeGreaterThan(0);
  });
});
