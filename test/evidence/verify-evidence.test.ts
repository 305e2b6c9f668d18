import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../functions/logger.js";
import { call, opened, post } from "../support/archive.js";
import { runVerify } from "../support/run-verify.js";
import { capture, sha256Of, startEvidenceArchive, upload } from "./evidence-kit.js";

let archive: Awaited<ReturnType<typeof startEvidenceArchive>>;
const errors: { message: string; fields: Record<string, unknown> }[] = [];
beforeAll(async () => {
  archive = await startEvidenceArchive({
    log: { ...silentLogger, error: (message, fields = {}) => errors.push({ message, fields }) },
  });
});
afterAll(() => archive.close());

describe("npm run verify -- --url … --evidence", () => {
  it("passes when every public capture's bytes are served as recorded, and names each that is not", async () => {
    const base = archive.server.url;
    expect((await post(base, "verify-evidence", opened())).status).toBe(201);
    for (const bytes of [
      "<html>one</html>",
      "<html>two</html>",
      "<html>three</html>",
      "<html>secret</html>",
    ]) {
      expect((await upload(base, bytes)).status).toBe(201);
      const access = bytes.includes("secret") ? { access: "restricted" } : {};
      expect((await post(base, "verify-evidence", capture(bytes, access))).status).toBe(201);
    }
    const ok = await runVerify(["--url", base, "--evidence", "--quiet"]);
    expect(ok.stderr).toBe("");
    expect(ok.stdout).toContain("OK evidence: 3 captures match their bytes");
    expect(ok.stdout).toContain("1 restricted not fetched");
    expect(ok.code).toBe(0);

    // The restriction's marker is not an empty file (a copy that skips those keeps it); a copy
    // without it serves the bytes to anyone, and the verifier says so.
    const secret = sha256Of("<html>secret</html>");
    const marker = join(archive.dir, `${secret}.restricted`);
    const markerText = readFileSync(marker, "utf8");
    expect(markerText).toContain("restricted-readers");
    rmSync(marker);
    const exposed = await runVerify(["--url", base, "--evidence", "--quiet"]);
    expect(exposed.code).toBe(1);
    expect(exposed.stderr).toContain(
      `its evidence ${secret} was captured restricted but is served to anyone (HEAD without credentials answered 200)`,
    );
    expect(exposed.stderr).toContain(
      "FAIL: 1 of 1 restricted captures' bytes are not held or are served to anyone",
    );
    writeFileSync(marker, markerText);
    expect((await fetch(`${base}/evidence/${secret}`)).status).toBe(401);

    // The same bytes captured again elsewhere as restricted: they stay restricted, so neither the
    // earlier public capture nor a later one is fetched, and neither fails the check.
    const later = "verify-evidence-later";
    expect((await post(base, later, opened())).status).toBe(201);
    expect((await post(base, later, capture("<html>one</html>", { access: "restricted" }))).status).toBe(201);
    const narrowed = await runVerify(["--url", base, "--evidence", "--quiet"]);
    expect(narrowed.stderr).toBe("");
    expect(narrowed.stdout).toContain("OK evidence: 2 captures match their bytes");
    expect(narrowed.stdout).toContain("3 restricted not fetched");
    expect((await post(base, later, capture("<html>one</html>"))).status).toBe(201);
    const after = await runVerify(["--url", base, "--evidence", "--quiet"]);
    expect(after.stdout).toContain("4 restricted not fetched");
    expect(after.code).toBe(0);

    // Someone with access to the disk changes the bytes of one capture and deletes another's: the
    // archive refuses to serve the changed ones as the evidence (whole, in part, or in a bundle)
    // and logs it, and the verifier names each capture and why, not only the first.
    const two = sha256Of("<html>two</html>");
    const three = sha256Of("<html>three</html>");
    writeFileSync(join(archive.dir, two), "<html>TWO</html>");
    rmSync(join(archive.dir, three));
    const bad = await runVerify(["--url", base, "--evidence", "--quiet"]);
    expect(bad.code).toBe(1);
    const detail = `the bytes kept as ${two} now have SHA-256 ${sha256Of("<html>TWO</html>")}: they are not served`;
    const failures = bad.stderr.trim().split("\n");
    expect(failures[0]).toMatch(`FAIL: incident verify-evidence version 3 `);
    expect(failures[0]).toContain(`its evidence ${two} is not served (GET answered 500: ${detail}`);
    expect(failures[1]).toMatch(`FAIL: incident verify-evidence version 4 `);
    expect(failures[1]).toContain(`its evidence ${three} is not served (GET answered 404`);
    expect(failures[2]).toBe("FAIL: 2 of 2 public captures do not match the bytes served; 0 do");
    expect(failures).toHaveLength(3);
    for (const headers of [{}, { range: "bytes=0-3" }] as Record<string, string>[]) {
      const refused = await call(base, "GET", `/evidence/${two}`, undefined, headers);
      expect([refused.status, refused.body.type], JSON.stringify(headers)).toEqual([
        500,
        "/docs#problem-evidence-altered",
      ]);
      expect(refused.body.detail).toContain(detail);
    }
    const events = (await call(base, "GET", "/incidents/verify-evidence/events")).body.items as {
      eventId: string;
      version: number;
    }[];
    const captured = events.find((e) => e.version === 3)?.eventId;
    await call(base, "GET", `/incidents/verify-evidence/events/${captured}/proof?wait=true`);
    const bundle = await call(base, "GET", `/incidents/verify-evidence/events/${captured}/bundle`);
    expect([bundle.status, bundle.body.type]).toEqual([500, "/docs#problem-evidence-altered"]);
    expect(
      errors.filter((e) => e.message === "Evidence altered where it is kept").length,
    ).toBeGreaterThanOrEqual(4);
    expect(errors.at(-1)?.fields.detail).toContain(detail);
    expect((await fetch(`${base}/health`)).status).toBe(200);
  });
});
