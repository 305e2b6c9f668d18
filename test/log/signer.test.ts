import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseVerifierKey, signNote, verifyNote } from "../../events/transparency/note.js";
import { LOCAL_KEY_FILE, localSigner, parsePrivateKey } from "../../functions/log/signer.js";

const dir = mkdtempSync(join(tmpdir(), "log-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the local log key", () => {
  it("is made at first start in DATA_DIR with mode 0600, and the same key is read back every time", async () => {
    const keys = Array.from({ length: 12 }, () => localSigner({ origin: "example.org/log", dataDir: dir }));
    expect(statSync(join(dir, LOCAL_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(new Set(keys.map((k) => k.vkey)).size).toBe(1);
    const signer = keys[0] as (typeof keys)[number];
    expect(parseVerifierKey(signer.vkey).name).toBe("example.org/log");
    const note = await signNote("example.org/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n", [
      signer,
    ]);
    expect(verifyNote(note, [signer.vkey]).verifiedBy).toEqual(["example.org/log"]);
  });

  it("reads keys whose base64 holds '+' (any key text it wrote)", () => {
    for (let i = 0; i < 40; i++) {
      const fresh = mkdtempSync(join(dir, "k-"));
      const made = localSigner({ origin: "example.org/log", dataDir: fresh });
      const text = readFileSync(join(fresh, LOCAL_KEY_FILE), "utf8");
      expect(localSigner({ origin: "example.org/log", keyText: text }).vkey).toBe(made.vkey);
      expect(parsePrivateKey(text).name).toBe("example.org/log");
    }
  });

  it("refuses a key kept for another origin: a log's origin never changes", () => {
    expect(() => localSigner({ origin: "other.example/log", dataDir: dir })).toThrow(/origin/);
  });
});
