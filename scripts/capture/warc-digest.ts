import { createHash, type Hash } from "node:crypto";
import base32Encode from "base32-encode";

/**
 * A WARC record's `WARC-Payload-Digest` (`<algorithm>:<value>`), recomputed from the payload it
 * describes. Crawlers write it in either encoding: base32 (the WARC spec's example, wget,
 * Heritrix, Python's warcio: `sha1:2WAX…`) or hex (warcio.js: `sha256:9f86…`); the value is
 * compared in the encoding it was written in.
 */
export interface DeclaredDigest {
  /** As written in the record. */
  text: string;
  /** Node's name of the algorithm (sha1, sha256, sha512, md5). */
  algorithm: string;
  encoding: "base32" | "hex";
  /** The value as written, upper-cased for base32 and lower-cased for hex, base32 padding removed. */
  value: string;
}

const ALGORITHMS: Record<string, { node: string; bytes: number }> = {
  sha1: { node: "sha1", bytes: 20 },
  sha256: { node: "sha256", bytes: 32 },
  sha512: { node: "sha512", bytes: 64 },
  md5: { node: "md5", bytes: 16 },
};

/** The digest a record declares, or why it cannot be checked (an algorithm or form this does not know). */
export function declaredDigest(text: string): DeclaredDigest | { unreadable: string } {
  const at = text.indexOf(":");
  const name = text.slice(0, Math.max(0, at)).trim().toLowerCase().replace(/^sha-/, "sha");
  const known = ALGORITHMS[name];
  if (at < 0 || !known)
    return { unreadable: `its algorithm is not one this checks (sha1, sha256, sha512, md5)` };
  const raw = text.slice(at + 1).trim();
  if (raw.length === known.bytes * 2 && /^[0-9a-f]+$/i.test(raw))
    return { text, algorithm: known.node, encoding: "hex", value: raw.toLowerCase() };
  const unpadded = raw.replace(/=+$/, "").toUpperCase();
  if (unpadded.length === Math.ceil((known.bytes * 8) / 5) && /^[A-Z2-7]+$/.test(unpadded))
    return { text, algorithm: known.node, encoding: "base32", value: unpadded };
  return { unreadable: `its value is neither the hex nor the base32 of a ${name} digest` };
}

/**
 * Hashes one payload for the checks a capture makes: SHA-256 always (what is recorded when the
 * record declares nothing), and the declared algorithm when it is another.
 */
export class PayloadHashes {
  private readonly sha256 = createHash("sha256");
  private readonly other: Hash | null;

  constructor(private readonly declared: DeclaredDigest | null) {
    this.other = declared && declared.algorithm !== "sha256" ? createHash(declared.algorithm) : null;
  }

  update(chunk: Uint8Array): void {
    this.sha256.update(chunk);
    this.other?.update(chunk);
  }

  /** The payload's SHA-256 as the contract writes it, and whether the declared digest matches it (null: none declared). */
  finish(): { sha256: string; matches: boolean | null; computed: string | null } {
    const sha256 = this.sha256.digest();
    const own = `sha256:${sha256.toString("hex")}`;
    const declared = this.declared;
    if (!declared) return { sha256: own, matches: null, computed: null };
    const bytes = this.other ? this.other.digest() : sha256;
    const value =
      declared.encoding === "hex"
        ? bytes.toString("hex")
        : base32Encode(bytes, "RFC4648", { padding: false });
    const computed = `${declared.text.slice(0, declared.text.indexOf(":"))}:${value}`;
    return { sha256: own, matches: value === declared.value, computed };
  }
}
