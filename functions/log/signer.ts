import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { chmodSync, existsSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GetPublicKeyCommand, KMSClient, SignCommand } from "@aws-sdk/client-kms";
import { ed25519RawPublicKey } from "../../events/transparency/ed25519.js";
import { keyId, type NoteSigner, verifierKey } from "../../events/transparency/note.js";

/** The log's checkpoint signer: a note signer that also knows its public key. */
export interface LogSigner extends NoteSigner {
  publicKey: Uint8Array;
  /** `<name>+<key id hex>+<base64(0x01 ‖ public key)>` */
  vkey: string;
}

export const DEFAULT_LOG_ORIGIN = "localhost/incident-ledger";
/** Where the local key is kept in DATA_DIR. */
export const LOCAL_KEY_FILE = "log-signing-key";

/** KMS's algorithm for pure Ed25519 over the raw message (what signed notes sign). */
export const KMS_SIGNING_ALGORITHM = "ED25519_SHA_512";

function signerFrom(
  name: string,
  publicKey: Uint8Array,
  signRaw: (message: Uint8Array) => Promise<Uint8Array>,
) {
  return {
    name,
    keyId: keyId(name, publicKey),
    publicKey,
    vkey: verifierKey(name, publicKey),
    sign: signRaw,
  };
}

/** An Ed25519 signer over a private key held in this process. */
export function keySigner(name: string, privateKey: KeyObject): LogSigner {
  const publicKey = ed25519RawPublicKey(privateKey);
  return signerFrom(name, publicKey, async (message) => new Uint8Array(sign(null, message, privateKey)));
}

/**
 * The Go note package's private key text, `PRIVATE+KEY+<name>+<hash>+<base64(0x01 ‖ seed)>`, so
 * the same key works with Go's tooling; a bare base64 32-byte seed is accepted too.
 */
export function parsePrivateKey(text: string): { name?: string; privateKey: KeyObject } {
  const trimmed = text.trim();
  let seed: Uint8Array;
  let name: string | undefined;
  // The key's base64 may hold "+" itself: only the first four separators split fields.
  const parts = trimmed.split("+");
  if (parts[0] === "PRIVATE" && parts[1] === "KEY" && parts.length >= 5) {
    name = parts[2];
    const material = Buffer.from(parts.slice(4).join("+"), "base64");
    if (material.length !== 33 || material[0] !== 0x01)
      throw new Error("the log key is not an Ed25519 note key");
    seed = material.subarray(1);
  } else {
    seed = Buffer.from(trimmed, "base64");
    if (seed.length !== 32) throw new Error("the log key is PRIVATE+KEY+… text or base64 of a 32-byte seed");
  }
  return { ...(name ? { name } : {}), privateKey: privateKeyFromSeed(seed) };
}

export function formatPrivateKey(name: string, privateKey: KeyObject): string {
  const seed = seedOf(privateKey);
  const publicKey = ed25519RawPublicKey(privateKey);
  const id = Buffer.from(keyId(name, publicKey)).toString("hex");
  return `PRIVATE+KEY+${name}+${id}+${Buffer.from([0x01, ...seed]).toString("base64")}\n`;
}

function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  // PKCS#8 for Ed25519 is a fixed 16-byte prefix followed by the 32-byte seed (RFC 8410).
  const prefix = Buffer.from("302e020100300506032b657004220420", "hex");
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: "der", type: "pkcs8" });
}

function seedOf(privateKey: KeyObject): Uint8Array {
  const der = privateKey.export({ format: "der", type: "pkcs8" });
  return new Uint8Array(der.subarray(der.length - 32));
}

/**
 * The local log key: LEDGER_LOG_KEY if given, else the key kept in DATA_DIR (made at first
 * start, file mode 0600), else — with no DATA_DIR (in-memory tests) — a key for this run only.
 */
export function localSigner(options: { origin: string; dataDir?: string; keyText?: string }): LogSigner {
  if (options.keyText) return keySigner(options.origin, parsePrivateKey(options.keyText).privateKey);
  if (!options.dataDir) return keySigner(options.origin, generateKeyPairSync("ed25519").privateKey);
  const file = join(options.dataDir, LOCAL_KEY_FILE);
  if (existsSync(file)) {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const parsed = parsePrivateKey(readFileSync(file, "utf8"));
    if (parsed.name && parsed.name !== options.origin) {
      throw new Error(
        `the log key in ${file} is for origin ${parsed.name}, not ${options.origin}: a log's origin never changes`,
      );
    }
    return keySigner(options.origin, parsed.privateKey);
  }
  const { privateKey } = generateKeyPairSync("ed25519");
  // Written whole to a temporary file, then linked into place: a crash never leaves half a
  // key behind, and a link never replaces a key another process made a moment ago.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, formatPrivateKey(options.origin, privateKey), { mode: 0o600 });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    unlinkSync(temporary);
    return localSigner(options);
  }
  unlinkSync(temporary);
  return keySigner(options.origin, privateKey);
}

/**
 * A signer whose key never leaves KMS (key spec ECC_NIST_EDWARDS25519). Pure Ed25519 over the
 * raw message: MessageType RAW with ED25519_SHA_512 (not ED25519_PH_SHA_512, which is Ed25519ph).
 */
export async function kmsSigner(options: {
  origin: string;
  keyId: string;
  kms?: KMSClient;
}): Promise<LogSigner> {
  const kms = options.kms ?? new KMSClient({});
  const out = await kms.send(new GetPublicKeyCommand({ KeyId: options.keyId }));
  const der = out.PublicKey;
  if (!der || der.length < 32) throw new Error("KMS returned no public key");
  // DER SubjectPublicKeyInfo for Ed25519 ends with the 32 raw key bytes.
  const publicKey = new Uint8Array(der.subarray(der.length - 32));
  return signerFrom(options.origin, publicKey, async (message) => {
    const signed = await kms.send(
      new SignCommand({
        KeyId: options.keyId,
        Message: message,
        MessageType: "RAW",
        SigningAlgorithm: KMS_SIGNING_ALGORITHM,
      }),
    );
    if (signed.Signature?.length !== 64) throw new Error("KMS returned no Ed25519 signature");
    return new Uint8Array(signed.Signature);
  });
}

/** The verifier key of the KMS key, for the API (which may read the public key, never sign). */
export function kmsVerifierKey(options: {
  origin: string;
  keyId: string;
  kms?: KMSClient;
}): () => Promise<string> {
  let vkey: Promise<string> | undefined;
  return () => {
    vkey ??= (async () => {
      const kms = options.kms ?? new KMSClient({});
      const out = await kms.send(new GetPublicKeyCommand({ KeyId: options.keyId }));
      const der = out.PublicKey;
      if (!der || der.length < 32) throw new Error("KMS returned no public key");
      return verifierKey(options.origin, new Uint8Array(der.subarray(der.length - 32)));
    })().catch((error) => {
      vkey = undefined;
      throw error;
    });
    return vkey;
  };
}
