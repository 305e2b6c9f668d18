import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readState, type VerifierState, writeState } from "../../scripts/verify/state.js";

const dir = mkdtempSync(join(tmpdir(), "verifier-state-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const state: VerifierState = {
  origin: "localhost/incident-ledger",
  size: 21,
  root: "mmJj3/HKP13TQ8VM5qUyL3QzIQcWxeG7IExTxxRVOEM=",
  checkpoint: "localhost/incident-ledger\n21\nmmJj3/HKP13TQ8VM5qUyL3QzIQcWxeG7IExTxxRVOEM=\n\n— x y\n",
  verifiedAt: "2026-11-30T17:34:00.000Z",
};

describe("the verifier's state file", () => {
  it("given no file or an empty one (touch, mktemp), then it is a first run", async () => {
    expect(await readState(join(dir, "absent.json"))).toBeNull();
    const empty = join(dir, "empty.json");
    writeFileSync(empty, "");
    expect(await readState(empty)).toBeNull();
  });

  it("given a file that is not a state, then it names the file instead of a bare JSON error", async () => {
    const junk = join(dir, "junk.json");
    writeFileSync(junk, "{ not json");
    await expect(readState(junk)).rejects.toThrow(`${junk} is not a verifier state file`);
    writeFileSync(junk, JSON.stringify({ hello: "world" }));
    await expect(readState(junk)).rejects.toThrow(`${junk} is not a verifier state file`);
  });

  it("given a written state, then it reads back the same, kept private to its owner", async () => {
    const file = join(dir, "state.json");
    await writeState(file, state);
    expect(await readState(file)).toEqual(state);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").endsWith("\n")).toBe(true);
  });
});
