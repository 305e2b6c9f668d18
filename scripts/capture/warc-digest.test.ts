import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { declaredDigest, PayloadHashes } from "./warc-digest.js";

const PAYLOAD = Buffer.from("<html>The station</html>");
const sha1 = createHash("sha1").update(PAYLOAD).digest();
const sha256 = createHash("sha256").update(PAYLOAD).digest();
// RFC 4648 base32 of the SHA-1, as Python's warcio and wget write it (checked with `base32`).
const SHA1_BASE32 = `sha1:${base32(sha1)}`;

function base32(bytes: Buffer): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const byte of bytes) bits += byte.toString(2).padStart(8, "0");
  let out = "";
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)];
  return out;
}

function check(declared: string, payload = PAYLOAD) {
  const digest = declaredDigest(declared);
  if ("unreadable" in digest) throw new Error(digest.unreadable);
  const hashes = new PayloadHashes(digest);
  hashes.update(payload.subarray(0, 5));
  hashes.update(payload.subarray(5));
  return hashes.finish();
}

describe("a WARC record's payload digest", () => {
  it("given a SHA-1 in base32 (wget, Heritrix, Python's warcio), matches its payload and not another", () => {
    expect(check(SHA1_BASE32)).toMatchObject({ matches: true, computed: SHA1_BASE32 });
    expect(check(SHA1_BASE32, Buffer.from("<html>Another page</html>")).matches).toBe(false);
  });

  it("given a SHA-256 in hex (warcio.js) or base32, padded or lower-case, matches either way", () => {
    expect(check(`sha256:${sha256.toString("hex")}`).matches).toBe(true);
    expect(check(`sha256:${sha256.toString("hex").toUpperCase()}`).matches).toBe(true);
    expect(check(`sha256:${base32(sha256)}====`).matches).toBe(true);
    expect(check(`SHA-256:${base32(sha256).toLowerCase()}`).matches).toBe(true);
  });

  it("says how the payload hashes in the declared form when it does not match", () => {
    const wrong = `sha1:${"A".repeat(32)}`;
    expect(check(wrong)).toEqual({
      sha256: `sha256:${sha256.toString("hex")}`,
      matches: false,
      computed: SHA1_BASE32,
    });
  });

  it("names why an unknown algorithm or a value of the wrong length cannot be checked", () => {
    expect(declaredDigest("blake3:abcd")).toEqual({ unreadable: expect.stringContaining("algorithm") });
    expect(declaredDigest("sha1:ABCD")).toEqual({ unreadable: expect.stringContaining("sha1") });
    expect(declaredDigest("no colon")).toEqual({ unreadable: expect.stringContaining("algorithm") });
  });

  it("given none declared, gives the payload's SHA-256 as the contract writes it", () => {
    const hashes = new PayloadHashes(null);
    hashes.update(PAYLOAD);
    expect(hashes.finish()).toEqual({
      sha256: `sha256:${sha256.toString("hex")}`,
      matches: null,
      computed: null,
    });
  });
});
