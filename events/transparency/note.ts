import { createHash } from "node:crypto";
import { ed25519Verify } from "./ed25519.js";
import { MalformedNoteError, MalformedVerifierKeyError, NoteVerificationError } from "./errors.js";

/** c2sp.org/signed-note, with Ed25519 (type 0x01) and tlog-cosignature's cosignature/v1 (0x04). */
export const ED25519 = 0x01;
export const COSIGNATURE_V1 = 0x04;

const MAX_SIGNATURES = 64;
const encoder = new TextEncoder();

function checkKeyName(name: string): void {
  if (name.length === 0 || /[\s+]/u.test(name)) {
    throw new MalformedVerifierKeyError("a key name is non-empty, with no spaces and no '+'");
  }
}

/** SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]. */
export function keyId(name: string, publicKey: Uint8Array, type: number = ED25519): Uint8Array {
  checkKeyName(name);
  const digest = createHash("sha256")
    .update(encoder.encode(`${name}\n`))
    .update(new Uint8Array([type]))
    .update(publicKey)
    .digest();
  return new Uint8Array(digest.subarray(0, 4));
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** `<name>+<hex key id>+<base64(type ‖ public key)>`. */
export function verifierKey(name: string, publicKey: Uint8Array, type: number = ED25519): string {
  const material = new Uint8Array([type, ...publicKey]);
  return `${name}+${hex(keyId(name, publicKey, type))}+${Buffer.from(material).toString("base64")}`;
}

export interface VerifierKey {
  name: string;
  keyId: Uint8Array;
  type: number;
  publicKey: Uint8Array;
}

/** Standard base64 with padding, refusing anything that does not re-encode to itself. */
export function strictBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return null;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? new Uint8Array(bytes) : null;
}

/** Parses a vkey (Ed25519 log keys, or Ed25519 cosigner keys of type 0x04) and checks its key id. */
export function parseVerifierKey(vkey: string): VerifierKey {
  const parts = vkey.trim().split("+");
  // The base64 may itself hold '+': the name and the id are the first two parts.
  if (parts.length < 3) throw new MalformedVerifierKeyError("a verifier key is <name>+<key id>+<key>");
  const [name, idHex] = parts as [string, string];
  const material = strictBase64(parts.slice(2).join("+"));
  checkKeyName(name);
  if (!/^[0-9a-f]{8}$/.test(idHex))
    throw new MalformedVerifierKeyError("the key id is 8 lowercase hex digits");
  if (material?.length !== 33) throw new MalformedVerifierKeyError("the key is base64 of 33 bytes");
  const type = material[0] as number;
  if (type !== ED25519 && type !== COSIGNATURE_V1) {
    throw new MalformedVerifierKeyError(`signature type 0x${type.toString(16)} is not Ed25519`);
  }
  const publicKey = material.slice(1);
  const id = keyId(name, publicKey, type);
  if (hex(id) !== idHex) throw new MalformedVerifierKeyError("the key id does not match the key");
  return { name, keyId: id, type, publicKey };
}

export interface NoteSigner {
  name: string;
  keyId: Uint8Array;
  sign(message: Uint8Array): Promise<Uint8Array>;
}

function checkText(text: string): void {
  if (!text.endsWith("\n")) throw new MalformedNoteError("note text ends with a newline");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the spec forbids.
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text))
    throw new MalformedNoteError("note text holds a control character");
  if (/\r/.test(text)) throw new MalformedNoteError("note text holds a carriage return");
}

export function signatureLine(name: string, keyIdBytes: Uint8Array, signature: Uint8Array): string {
  const payload = new Uint8Array([...keyIdBytes, ...signature]);
  return `— ${name} ${Buffer.from(payload).toString("base64")}\n`;
}

export async function signNote(text: string, signers: readonly NoteSigner[]): Promise<string> {
  checkText(text);
  if (signers.length === 0) throw new RangeError("a signed note needs at least one signature");
  const message = encoder.encode(text);
  const lines = await Promise.all(
    signers.map(async (s) => signatureLine(s.name, s.keyId, await s.sign(message))),
  );
  return `${text}\n${lines.join("")}`;
}

export interface NoteSignature {
  name: string;
  keyId: Uint8Array;
  /** The signature bytes after the 4-byte key id. */
  signature: Uint8Array;
}

export function parseNote(note: string): { text: string; signatures: NoteSignature[] } {
  if (note.includes("\r")) throw new MalformedNoteError("a signed note holds no carriage returns");
  const split = note.lastIndexOf("\n\n");
  if (split < 0 || !note.endsWith("\n"))
    throw new MalformedNoteError("a signed note is text, a blank line, signatures");
  const text = note.slice(0, split + 1);
  checkText(text);
  const lines = note.slice(split + 2, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) throw new MalformedNoteError("too many signatures");
  const signatures = lines.map((line) => {
    const m = /^— (\S+) (\S+)$/u.exec(line);
    if (!m) throw new MalformedNoteError("a signature line is '— <name> <base64>'");
    const [, name, b64] = m as unknown as [string, string, string];
    if (name.includes("+")) throw new MalformedNoteError("a key name holds no '+'");
    const bytes = strictBase64(b64);
    if (!bytes || bytes.length < 5)
      throw new MalformedNoteError("a signature is base64 of a key id and a signature");
    return { name, keyId: bytes.slice(0, 4), signature: bytes.slice(4) };
  });
  return { text, signatures };
}

/** Something that checks the signatures of one (name, key id). */
export interface NoteVerifier {
  name: string;
  keyId: Uint8Array;
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

export function ed25519NoteVerifier(vkey: string | VerifierKey): NoteVerifier {
  const key = typeof vkey === "string" ? parseVerifierKey(vkey) : vkey;
  if (key.type !== ED25519)
    throw new MalformedVerifierKeyError("a note verifier key has type 0x01 (Ed25519)");
  return {
    name: key.name,
    keyId: key.keyId,
    verify: (message, signature) => ed25519Verify(key.publicKey, message, signature),
  };
}

const sameId = (a: Uint8Array, b: Uint8Array) => hex(a) === hex(b);

/**
 * Verifies a note as the spec requires: signatures by unknown keys are ignored; a known key's
 * signature that fails makes the whole note fail; at least one known key must have signed.
 */
export function verifyNote(
  note: string,
  verifiers: readonly (NoteVerifier | string)[],
): { text: string; verifiedBy: string[]; signatures: NoteSignature[] } {
  const { text, signatures } = parseNote(note);
  const known = verifiers.map((v) => (typeof v === "string" ? ed25519NoteVerifier(v) : v));
  const message = encoder.encode(text);
  const verifiedBy: string[] = [];
  for (const sig of signatures) {
    const verifier = known.find((k) => k.name === sig.name && sameId(k.keyId, sig.keyId));
    if (!verifier) continue;
    if (!verifier.verify(message, sig.signature)) {
      throw new NoteVerificationError(`the signature by ${sig.name} does not verify`);
    }
    if (!verifiedBy.includes(sig.name)) verifiedBy.push(sig.name);
  }
  if (verifiedBy.length === 0) throw new NoteVerificationError("no trusted key signed this note");
  return { text, verifiedBy, signatures };
}

/** tlog-cosignature's cosignature/v1 signed message: header, time line, then the checkpoint body. */
export function cosignatureMessage(checkpointBody: string, time: number): Uint8Array {
  if (!Number.isSafeInteger(time) || time < 0)
    throw new RangeError("a cosignature time is a POSIX timestamp");
  return encoder.encode(`cosignature/v1\ntime ${time}\n${checkpointBody}`);
}

/** The signature-line payload of a cosignature (after the key id): u64 timestamp ‖ Ed25519 signature. */
export function cosignaturePayload(time: number, signature: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + signature.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(time));
  out.set(signature, 8);
  return out;
}

/**
 * Checks one cosignature (the bytes after its key id) by an Ed25519 cosigner key over a checkpoint
 * body: its time when it verifies, null when it does not.
 */
export function verifyCosignature(
  checkpointBody: string,
  payload: Uint8Array,
  cosignerPublicKey: Uint8Array,
): { time: number } | null {
  if (payload.length !== 72) return null;
  const time = new DataView(payload.buffer, payload.byteOffset, 8).getBigUint64(0);
  if (time > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const message = cosignatureMessage(checkpointBody, Number(time));
  return ed25519Verify(cosignerPublicKey, message, payload.subarray(8)) ? { time: Number(time) } : null;
}

/**
 * The cosignatures on a signed checkpoint by the given cosigner keys (type 0x04), each checked:
 * cosigner name → time, for those that verify. Signature lines of other keys are ignored.
 */
export function verifiedCosignatures(note: string, cosigners: readonly VerifierKey[]): Map<string, number> {
  const { text, signatures } = parseNote(note);
  const out = new Map<string, number>();
  for (const sig of signatures) {
    const key = cosigners.find(
      (c) => c.type === COSIGNATURE_V1 && c.name === sig.name && sameId(c.keyId, sig.keyId),
    );
    if (!key) continue;
    const ok = verifyCosignature(text, sig.signature, key.publicKey);
    if (ok) out.set(key.name, ok.time);
  }
  return out;
}
