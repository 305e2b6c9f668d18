import { createPublicKey, type KeyObject, verify } from "node:crypto";

/**
 * Ed25519 verification held to RFC 8032 §5.1.7 strictly: a signature whose S is not below the
 * group order L, or whose R or public key is not a canonical encoding (y ≥ p), is refused before
 * OpenSSL sees it, so that one message never has two accepted signatures by malleability.
 */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;

function littleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] as number);
  return n;
}

/** A point encoding is canonical when its y coordinate (the low 255 bits) is below p. */
function canonicalPoint(encoded: Uint8Array): boolean {
  const y = littleEndian(encoded) & ((1n << 255n) - 1n);
  return y < P;
}

export function ed25519PublicKey(raw: Uint8Array): KeyObject {
  if (raw.length !== 32) throw new RangeError("an Ed25519 public key is 32 bytes");
  return createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") },
    format: "jwk",
  });
}

/** The 32 raw bytes of an Ed25519 public (or private, through its public half) key. */
export function ed25519RawPublicKey(key: KeyObject): Uint8Array {
  const jwk = (key.type === "private" ? createPublicKey(key) : key).export({ format: "jwk" });
  if (jwk.crv !== "Ed25519" || typeof jwk.x !== "string") throw new TypeError("not an Ed25519 key");
  return new Uint8Array(Buffer.from(jwk.x, "base64url"));
}

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (!canonicalPoint(publicKey) || !canonicalPoint(signature.subarray(0, 32))) return false;
  if (littleEndian(signature.subarray(32)) >= L) return false;
  try {
    return verify(null, message, ed25519PublicKey(publicKey), signature);
  } catch {
    return false;
  }
}
