import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AttributeValue, GetItemCommand, PutItemCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { peopleTables } from "../../functions/store/table-design.js";
import { call, casualties, envelope, opened, post, TOKEN } from "../support/archive.js";
import { runVerify } from "../support/run-verify.js";
import { capture, sha256Of, startEvidenceArchive, upload } from "./evidence-kit.js";

const work = mkdtempSync(join(tmpdir(), "ledger-bundle-"));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
let archive: Awaited<ReturnType<typeof startEvidenceArchive>>;
let base: string;
const errors: { message: string; fields: Record<string, unknown> }[] = [];
beforeAll(async () => {
  archive = await startEvidenceArchive({
    log: { ...silentLogger, error: (message, fields = {}) => errors.push({ message, fields }) },
  });
  base = archive.server.url;
});
afterAll(async () => {
  await archive.close();
  rmSync(work, { recursive: true, force: true });
});

async function bundle(incidentId: string, eventId: string, into: string): Promise<string> {
  const proof = await fetch(`${base}/incidents/${incidentId}/events/${eventId}/proof?wait=true`);
  expect(proof.status).toBe(200);
  const answer = await fetch(`${base}/incidents/${incidentId}/events/${eventId}/bundle`);
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toBe("application/zip");
  const zip = join(work, `${into}.zip`);
  writeFileSync(zip, Buffer.from(await answer.arrayBuffer()));
  const dir = join(work, into);
  execFileSync("unzip", ["-q", zip, "-d", dir]);
  return dir;
}

const PAGE = "<html>the page, as captured</html>";

describe("GET /incidents/{id}/events/{eventId}/bundle", () => {
  it("holds what sha256sum and the verifier accept, offline", async () => {
    expect((await post(base, "bundle-one", opened("bundle-opened"))).status).toBe(201);
    expect((await upload(base, PAGE)).status).toBe(201);
    expect((await post(base, "bundle-one", capture(PAGE, {}, "bundle-capture"))).status).toBe(201);
    const report = {
      ...casualties({ killed: { value: 12, qualifier: "exact" } }, "X", "bundle-report"),
      evidence: [sha256Of(PAGE)],
    };
    expect((await post(base, "bundle-one", report)).status).toBe(201);

    for (const eventId of ["bundle-capture", "bundle-report"]) {
      const dir = await bundle("bundle-one", eventId, eventId);
      expect(readdirSync(dir).sort()).toEqual([
        "README.txt",
        "SHA256SUMS",
        "checkpoint-body.txt",
        "checkpoint.txt",
        "event.json",
        "event.tlog-proof",
        "evidence",
        "vkey.txt",
      ]);
      expect(readFileSync(join(dir, "evidence", sha256Of(PAGE)), "utf8")).toBe(PAGE);
      expect(execFileSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: dir, encoding: "utf8" })).toContain(
        ": OK",
      );
      const stored = (await call(base, "GET", "/incidents/bundle-one/events")).body.items.find(
        (e: { eventId: string }) => e.eventId === eventId,
      );
      expect(JSON.parse(readFileSync(join(dir, "event.json"), "utf8"))).toEqual(stored);
      // The README's own command, typed in the bundle's folder as it says.
      const readme = readFileSync(join(dir, "README.txt"), "utf8");
      expect(readme).toContain("sha256sum -c SHA256SUMS");
      const command = /^\s*(npm --prefix <project> run verify .*)$/m.exec(readme)?.[1];
      expect(command, readme).toBeDefined();
      const verified = spawnSync("sh", ["-c", (command as string).replace("<project>", ROOT)], {
        cwd: dir,
        encoding: "utf8",
      });
      expect(verified.stderr).toBe("");
      expect(verified.stdout).toMatch(/OK/);
      expect(verified.status).toBe(0);
      // The standard-tools check, typed as the README gives it: the event's hash recomputes.
      const byHand = /^\s*(python3 -c .*)$/m.exec(readme)?.[1];
      expect(byHand, readme).toBeDefined();
      const recomputed = spawnSync("sh", ["-c", byHand as string], { cwd: dir, encoding: "utf8" });
      expect(recomputed.stdout.trim()).toBe("True");
    }
  });

  it("fails the verifier when the event in the bundle is changed, and sha256sum when the bytes are", async () => {
    const dir = join(work, "bundle-capture");
    const event = JSON.parse(readFileSync(join(dir, "event.json"), "utf8"));
    writeFileSync(
      join(dir, "event.json"),
      JSON.stringify({ ...event, data: { ...event.data, title: "edited" } }),
    );
    const verified = await runVerify([
      "--proof",
      join(dir, "event.tlog-proof"),
      "--event",
      join(dir, "event.json"),
      "--vkey",
      readFileSync(join(dir, "vkey.txt"), "utf8").trim(),
    ]);
    expect(verified.code).toBe(1);
    const byHand = /^\s*(python3 -c .*)$/m.exec(readFileSync(join(dir, "README.txt"), "utf8"))?.[1];
    expect(spawnSync("sh", ["-c", byHand as string], { cwd: dir, encoding: "utf8" }).stdout.trim()).toBe(
      "False",
    );
    writeFileSync(join(dir, "evidence", sha256Of(PAGE)), "other bytes");
    expect(() => execFileSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: dir, stdio: "pipe" })).toThrow();
  });

  it("says first, in the README, that the archive's copy of the event was altered after it was logged", async () => {
    expect(readFileSync(join(work, "bundle-report", "README.txt"), "utf8")).not.toContain("WARNING");
    const db = createDynamoClient(archive.server.dynamoEndpoint);
    const key = { incidentId: { S: "bundle-one" }, version: { N: "3" } };
    const original = (
      await db.send(new GetItemCommand({ TableName: archive.server.tables.events, Key: key }))
    ).Item as Record<string, AttributeValue>;
    const edited = structuredClone(original);
    const [stored] = edited.events?.L ?? [];
    expect(stored?.S).toContain('"value":12');
    if (stored) stored.S = (stored.S ?? "").replace('"value":12', '"value":13');
    await db.send(new PutItemCommand({ TableName: archive.server.tables.events, Item: edited }));
    try {
      const dir = await bundle("bundle-one", "bundle-report", "bundle-altered");
      const readme = readFileSync(join(dir, "README.txt"), "utf8");
      expect(readme.split("\n")[0]).toBe(
        "WARNING: event.json does not hash to its own hash field: the archive's stored copy of this",
      );
    } finally {
      await db.send(new PutItemCommand({ TableName: archive.server.tables.events, Item: original }));
      db.destroy();
    }
  });

  it("hashes the bytes again for each bundle, and says which bytes the archive no longer holds", async () => {
    const [kept, lost] = ["<html>kept as captured</html>", "<html>lost from the disk</html>"];
    expect((await post(base, "bundle-kept", opened("bundle-kept-opened"))).status).toBe(201);
    for (const [bytes, eventId] of [
      [kept, "bundle-kept"],
      [lost, "bundle-lost"],
    ] as const) {
      expect((await upload(base, bytes)).status).toBe(201);
      expect((await post(base, "bundle-kept", capture(bytes, {}, eventId))).status).toBe(201);
    }
    await bundle("bundle-kept", "bundle-kept", "kept-before");
    expect((await fetch(`${base}/evidence/${sha256Of(kept)}`)).status).toBe(200);

    // Changed in place, as a restore or a failing disk can, with the same size and time.
    const file = join(archive.dir, sha256Of(kept));
    const { atime, mtime } = statSync(file);
    writeFileSync(file, kept.replace("kept", "KEPT"));
    utimesSync(file, atime, mtime);
    const altered = await call(base, "GET", "/incidents/bundle-kept/events/bundle-kept/bundle");
    expect([altered.status, altered.body.type]).toEqual([500, "/docs#problem-evidence-altered"]);

    rmSync(join(archive.dir, sha256Of(lost)));
    const dir = await bundle("bundle-kept", "bundle-lost", "lost");
    expect(readdirSync(dir)).not.toContain("evidence");
    const readme = readFileSync(join(dir, "README.txt"), "utf8");
    expect(readme).toContain(`NOT HELD: the archive did not hold these bytes when it made this bundle`);
    expect(readme).toContain(`\n  ${sha256Of(lost)}\n`);
    expect(readme).not.toContain("Left out, restricted");
    expect(errors.at(-1)).toEqual({
      message: "Evidence named by an event is not held",
      fields: { incidentId: "bundle-kept", eventId: "bundle-lost", sha256: sha256Of(lost) },
    });
  });

  it("leaves restricted bytes out for a reader without the role, and says so", async () => {
    const secret = "<html>a face</html>";
    await upload(base, secret);
    expect(
      (await post(base, "bundle-one", capture(secret, { access: "restricted" }, "bundle-restricted"))).status,
    ).toBe(201);
    const dir = await bundle("bundle-one", "bundle-restricted", "restricted");
    expect(readdirSync(dir)).not.toContain("evidence");
    const readme = readFileSync(join(dir, "README.txt"), "utf8");
    expect(readme).toContain(
      `Left out, restricted (a bundle made by a restricted reader holds them): the bytes of\n  ${sha256Of(secret)}`,
    );
    expect(readme).not.toContain("NOT HELD");
    expect(readme).not.toContain("SHA256SUMS");
    expect((await call(base, "GET", "/incidents/bundle-one/events/nope-nope-nope/bundle")).status).toBe(404);
    // A HEAD reads nothing, and records nothing.
    const head = await fetch(`${base}/incidents/bundle-one/events/bundle-restricted/bundle`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect([head.status, head.headers.get("content-type")]).toEqual([200, "application/zip"]);
    // A restricted-reader's bundle holds them, and the read is recorded in the audit table.
    const held = await fetch(`${base}/incidents/bundle-one/events/bundle-restricted/bundle`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(held.status).toBe(200);
    const db = createDynamoClient(archive.server.dynamoEndpoint);
    const audit = await db.send(new ScanCommand({ TableName: peopleTables(archive.server.tables).audit }));
    db.destroy();
    const reads = (audit.Items ?? []).filter((i) => i.incidentId?.S === `evidence#${sha256Of(secret)}`);
    expect(reads.map((i) => [i.via?.S, i.readIn?.S, i.eventId?.S])).toEqual([
      ["bundle", "bundle-one", "bundle-restricted"],
    ]);
  });

  it("tells, in the README of a bundle without evidence, only how to check what it holds", async () => {
    const dir = await bundle("bundle-one", "bundle-opened", "no-evidence");
    expect(readdirSync(dir)).not.toContain("SHA256SUMS");
    const readme = readFileSync(join(dir, "README.txt"), "utf8");
    expect(readme).not.toMatch(/sha256sum|SHA256SUMS|evidence bytes/);
    expect(readme).toMatch(/^1\. The event is in the signed log/m);
    expect(readme).toMatch(/^2\. Without the project, with standard tools/m);
    expect(readme).toMatch(/^3\. No RFC 3161 time-stamp/m);
  });

  it("answers 202 with Retry-After, as the proof does, while a stored event is not in the log yet", async () => {
    // A writer whose commits do not reach this server's sequencer (as if its feed was lost).
    const db = createDynamoClient(archive.server.dynamoEndpoint);
    try {
      const quiet = new EventStore({ db, tables: archive.server.tables });
      await quiet.append({
        incidentId: "bundle-quiet",
        envelopes: [envelope(opened("bundle-quiet-open"))],
        recordedBy: "test",
        batched: false,
      });
      const path = "/incidents/bundle-quiet/events/bundle-quiet-open";
      const proof = await call(base, "GET", `${path}/proof`);
      expect(proof.status).toBe(202);
      const pending = await call(base, "GET", `${path}/bundle`);
      expect(pending.status).toBe(202);
      expect(pending.headers.get("retry-after")).toBe("1");
      expect(pending.headers.get("cache-control")).toBe("no-store");
      expect(pending.body).toEqual({ ...proof.body, detail: expect.stringContaining("bundle-quiet-open") });
    } finally {
      db.destroy();
    }
  });
});
