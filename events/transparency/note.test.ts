import { generateKeyPairSync, sign } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ed25519RawPublicKey, ed25519Verify } from "./ed25519.js";
import { MalformedNoteError, MalformedVerifierKeyError, NoteVerificationError } from "./errors.js";
import {
  COSIGNATURE_V1,
  cosignatureMessage,
  cosignaturePayload,
  keyId,
  type NoteSigner,
  parseNote,
  parseVerifierKey,
  signatureLine,
  signNote,
  verifiedCosignatures,
  verifierKey,
  verifyNote,
} from "./note.js";

function newSigner(name: string) {
  const { privateKey } = generateKeyPairSync("ed25519");
  const publicKey = ed25519RawPublicKey(privateKey);
  const signer: NoteSigner = {
    name,
    keyId: keyId(name, publicKey),
    sign: async (m) => new Uint8Array(sign(null, m, privateKey)),
  };
  return { signer, publicKey, privateKey, vkey: verifierKey(name, publicKey) };
}

describe("signed notes", () => {
  it("given a note signed by a key, then its vkey verifies it and a stranger's key does not", async () => {
    const log = newSigner("example.org/log");
    const other = newSigner("example.org/log");
    const note = await signNote("example.org/log\n3\nabc=\n", [log.signer]);
    expect(verifyNote(note, [log.vkey]).verifiedBy).toEqual(["example.org/log"]);
    // Same name, other key id: ignored, so nothing trusted signed it.
    expect(() => verifyNote(note, [other.vkey])).toThrow(NoteVerificationError);
  });

  it("given a signature by a known key that fails, then the whole note is refused even if another verifies", async () => {
    const a = newSigner("a.example/k");
    const b = newSigner("b.example/k");
    const note = await signNote("text\n", [a.signer, b.signer]);
    const forged = note.replace(/— b\.example\/k (\S+)/, (_m, sig: string) => {
      const bytes = Buffer.from(sig, "base64");
      bytes[10] = (bytes[10] as number) ^ 1;
      return `— b.example/k ${bytes.toString("base64")}`;
    });
    expect(() => verifyNote(forged, [a.vkey, b.vkey])).toThrow(NoteVerificationError);
    expect(verifyNote(forged, [a.vkey]).verifiedBy).toEqual(["a.example/k"]);
  });

  it("refuses malformed notes and keys", async () => {
    expect(() => parseNote("no blank line\n— a AAAAAAA=\n")).toThrow(MalformedNoteError);
    expect(() => parseNote("text\n\n— a not-base64!\n")).toThrow(MalformedNoteError);
    expect(() => parseNote("text\n\n— a AAAA\n")).toThrow(MalformedNoteError);
    expect(() => parseNote("te\u0001xt\n\n— a AAAAAAA=\n")).toThrow(MalformedNoteError);
    await expect(signNote("no newline", [newSigner("x").signer])).rejects.toThrow(MalformedNoteError);
    const { vkey } = newSigner("example.org/log");
    expect(() => parseVerifierKey(vkey.replace(/\+[0-9a-f]{8}\+/, "+00000000+"))).toThrow(
      MalformedVerifierKeyError,
    );
    expect(() => parseVerifierKey("no-plus")).toThrow(MalformedVerifierKeyError);
  });

  it("keeps text that itself holds blank lines: the last blank line separates the signatures", async () => {
    const s = newSigner("poem.example/k");
    const note = await signNote("line one\n\nline three\n", [s.signer]);
    expect(verifyNote(note, [s.vkey]).text).toBe("line one\n\nline three\n");
  });
});

describe("Ed25519 held to RFC 8032", () => {
  it("refuses a signature whose S is made non-canonical by adding the group order", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const publicKey = ed25519RawPublicKey(privateKey);
    const message = new TextEncoder().encode("m");
    const signature = new Uint8Array(sign(null, message, privateKey));
    expect(ed25519Verify(publicKey, message, signature)).toBe(true);
    const L = 2n ** 252n + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number);
    let sPlusL = s + L;
    const malleated = signature.slice();
    for (let i = 32; i < 64; i++) {
      malleated[i] = Number(sPlusL & 255n);
      sPlusL >>= 8n;
    }
    expect(ed25519Verify(publicKey, message, malleated)).toBe(false);
    expect(ed25519Verify(publicKey, message, signature.slice(0, 63))).toBe(false);
  });
});

describe("cosignatures (cosignature/v1)", () => {
  it("given a witness's cosignature line on a checkpoint, then its key verifies it with its time", async () => {
    const log = newSigner("example.org/log");
    const body = "example.org/log\n5\nq2Vx6b+G0vI4vr8wK4D3G8PZfHp1sTt8qTXl8Jh6S0Q=\n";
    const note = await signNote(body, [log.signer]);
    const { privateKey } = generateKeyPairSync("ed25519");
    const witnessKey = ed25519RawPublicKey(privateKey);
    const name = "witness.example/w1";
    const time = 1_700_000_000;
    const sig = new Uint8Array(sign(null, cosignatureMessage(body, time), privateKey));
    const cosigned = `${note}${signatureLine(name, keyId(name, witnessKey, COSIGNATURE_V1), cosignaturePayload(time, sig))}`;
    const witness = parseVerifierKey(verifierKey(name, witnessKey, COSIGNATURE_V1));
    expect(verifiedCosignatures(cosigned, [witness])).toEqual(new Map([[name, time]]));
    // The log's own signature still verifies, the cosignature being an unknown key to it.
    expect(verifyNote(cosigned, [log.vkey]).verifiedBy).toEqual(["example.org/log"]);
    // Another time than the one signed: not a cosignature.
    const moved = `${note}${signatureLine(name, keyId(name, witnessKey, COSIGNATURE_V1), cosignaturePayload(time + 1, sig))}`;
    expect(verifiedCosignatures(moved, [witness])).toEqual(new Map());
    expect(new TextDecoder().decode(cosignatureMessage(body, time))).toBe(
      `cosignature/v1\ntime ${time}\n${body}`,
    );
  });
});
