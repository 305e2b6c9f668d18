import { createHash } from "node:crypto";
import { BoundedLru } from "../bounded-lru.js";
import { LedgerError, PayloadTooLargeError } from "../errors.js";

/**
 * Evidence bytes, content-addressed by SHA-256 (lowercase hex). One interface, two homes:
 * a directory (local-blob-store.ts) and an S3 bucket (s3-blob-store.ts). A blob is *held* only
 * once its bytes are whole under their real name; nothing half-written is ever under it.
 */
export type Access = "public" | "restricted";

export interface BlobInfo {
  sha256: string;
  size: number;
  mediaType: string;
  /**
   * `restricted` once a capture with `access: restricted` names the bytes (set before that
   * capture is stored, never undone here); else null or `public`: anyone may read them.
   */
  access: Access | null;
  /** When the bytes were last written where they are kept (a file's mtime, an object's LastModified). */
  keptAt: string;
}

export interface PutOptions {
  mediaType: string;
  /** Bytes beyond this are refused (PayloadTooLargeError), and nothing is kept. */
  max: number;
  /** The digest the client declared (Repr-Digest, or an upload's sha256): another is refused. */
  sha256?: string;
  /** The size the client declared (an upload's size): another is refused. */
  size?: number;
  /**
   * `restricted`: the bytes are restricted before they are held under their name, so no reader
   * without the role ever gets them (an upload of a victim's photo, before its capture).
   */
  access?: Access;
}

export interface PutResult {
  sha256: string;
  size: number;
  mediaType: string;
  /** false: the bytes were already held (the first upload's media type stands). */
  created: boolean;
}

export interface ByteRange {
  start: number;
  /** Inclusive. */
  end: number;
}

/** A direct upload the client makes elsewhere (AWS: a presigned S3 PUT). */
export interface DirectUpload {
  uploadUrl: string;
  headers: Record<string, string>;
  expiresAt: string;
}

/**
 * Bytes streamed into the store's staging place and hashed, not yet held: `keep` puts them under
 * their real name, `discard` (idempotent, a no-op once kept) removes them. Whoever stages, discards.
 */
export interface StagedBlob {
  sha256: string;
  size: number;
  mediaType: string;
  /** Keeps the bytes; `access` (or the staging's own) restricts them before they are held. */
  keep(access?: Access): Promise<PutResult>;
  discard(): Promise<void>;
}

export interface BlobStore {
  /** Streams `body` into the store while hashing it: never the whole body in memory. */
  put(body: AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult>;
  /**
   * The first half of `put`: the bytes staged and checked against `options` (over `max`, another
   * digest or size: refused, nothing left staged), kept only when the caller says so.
   */
  stage(body: AsyncIterable<Uint8Array>, options: PutOptions): Promise<StagedBlob>;
  head(sha256: string): Promise<BlobInfo | null>;
  /** The bytes (or a range of them) of a held blob. */
  read(sha256: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>>;
  /** Marks who may read the bytes; `restricted` once set is never undone here. */
  setAccess(sha256: string, access: Access): Promise<void>;
  /** A direct upload elsewhere, or null: the client then PUTs to this server's upload route. */
  directUpload(upload: {
    sha256: string;
    size: number;
    mediaType: string;
    expiresInSeconds: number;
    /** `restricted`: bytes not yet held are restricted before they arrive. */
    access?: Access;
  }): Promise<DirectUpload | null>;
  /**
   * A short-lived URL serving the bytes elsewhere (AWS: a presigned GET), or null: served here.
   * `access`: who may read them; restricted bytes are answered for no cache to keep.
   */
  readUrl(
    sha256: string,
    answer: { mediaType: string; disposition: string; expiresInSeconds: number; access: Access },
  ): Promise<string | null>;
}

/** `put` as each store makes it: staged, then kept, the staging place emptied either way. */
export async function keepStaged(staged: Promise<StagedBlob>): Promise<PutResult> {
  const blob = await staged;
  try {
    return await blob.keep();
  } finally {
    await blob.discard();
  }
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Kept bytes checked against the SHA-256 they are kept under before any of them is served:
 * bytes altered where they are kept (a disk, a bucket someone can write) are refused with a
 * clear answer, never sent as the evidence. A check holds while the bytes stay as they were
 * checked (their size and `keptAt`), so a range or another download does not read them whole
 * again; bytes written since are checked afresh.
 */
export class KeptBytesCheck {
  private readonly checked = new BoundedLru<string, true>(CHECKS_REMEMBERED);
  constructor(private readonly store: BlobStore) {}

  /** `again`: hash them whatever an earlier check found. */
  async check(info: BlobInfo, options: { again?: boolean } = {}): Promise<void> {
    const key = `${info.sha256} ${info.size} ${info.keptAt}`;
    if (!options.again && this.checked.get(key)) return;
    const hash = createHash("sha256");
    for await (const chunk of (await this.store.read(info.sha256)) as unknown as AsyncIterable<Uint8Array>)
      hash.update(chunk);
    const found = hash.digest("hex");
    if (found !== info.sha256)
      throw new EvidenceAlteredError(
        `the bytes kept as ${info.sha256} now have SHA-256 ${found}: they are not served; restore them from a copy (the SHA-256 names the right bytes)`,
        undefined,
        { sha256: info.sha256 },
      );
    this.checked.set(key, true);
  }
}

/** Checks remembered, one short key each. */
const CHECKS_REMEMBERED = 10_000;

export const hexToBase64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");
export const base64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");

/** The RFC 9530 `Repr-Digest` value of these bytes. */
export const reprDigest = (sha256: string) => `sha-256=:${hexToBase64(sha256)}:`;

/** The restricted of two accesses: once restricted, bytes stay restricted. */
export const stricter = (a: Access | null, b: Access): Access =>
  a === "restricted" || b === "restricted" ? "restricted" : "public";

export class DigestMismatchError extends LedgerError {
  readonly slug = "digest-mismatch";
  readonly status = 422;
  readonly title = "The bytes are not the ones declared";
}

/** Kept bytes that no longer match their SHA-256: the archive's fault, never the reader's. */
export class EvidenceAlteredError extends LedgerError {
  readonly slug = "evidence-altered";
  readonly status = 500;
  readonly title = "Evidence altered where it is kept";
}

export class UnsupportedMediaTypeError extends LedgerError {
  readonly slug = "unsupported-media-type";
  readonly status = 415;
  readonly title = "Missing or unusable Content-Type";
}

/** The declared bytes and the received ones differ: said the same way by every store. */
function mismatch(what: "sha256" | "size", declared: string | number, got: string | number) {
  const path = what === "sha256" ? "Repr-Digest" : "size";
  return new DigestMismatchError(
    `the bytes received have ${what} ${got}, not the declared ${declared}; nothing was kept`,
    [{ path, message: `declared ${declared}, received ${got}` }],
  );
}

/**
 * The bytes of an upload as they stream into a store: counted against `max` and hashed, then
 * checked against what the client declared. Every store takes them through one of these, so
 * each refuses the same bodies with the same words.
 */
export class Intake {
  private readonly hash = createHash("sha256");
  size = 0;

  constructor(private readonly options: PutOptions) {}

  /** Counts and hashes one chunk; past `max` the whole body is refused. */
  take(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.options.max) {
      throw new PayloadTooLargeError(
        `the evidence is over ${this.options.max} bytes (LEDGER_EVIDENCE_MAX); nothing was kept`,
        [{ path: "(body)", message: `must be at most ${this.options.max} bytes` }],
      );
    }
    this.hash.update(chunk);
  }

  /**
   * The SHA-256 of every chunk taken; a size or digest other than the declared one is refused,
   * the size first: an upload cut short is said as such, not as other bytes.
   */
  finish(): string {
    const { sha256: declared, size } = this.options;
    const sha256 = this.hash.digest("hex");
    if (size !== undefined && size !== this.size) throw mismatch("size", size, this.size);
    if (declared !== undefined && declared !== sha256) throw mismatch("sha256", declared, sha256);
    return sha256;
  }
}
