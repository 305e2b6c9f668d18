import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "hono";
import * as z from "zod/mini";
import { downloadName } from "../../events/media-types.js";
import { toFieldErrors } from "../../events/validate.js";
import {
  ForbiddenError,
  InvalidUploadRequestError,
  MalformedRequestError,
  NotFoundError,
  PayloadTooLargeError,
  UnauthorizedError,
} from "../errors.js";
import { type AsyncAuthenticator, asAsync, requireRoleAsync } from "../http/async-auth.js";
import { type Authenticator, requireRole } from "../http/auth.js";
import { acceptQuery } from "../http/params.js";
import { bodyChunks, readJsonBody } from "../http/read-body.js";
import type { Logger } from "../logger.js";
import type { AuditLog } from "../people/audit-log.js";
import {
  type Access,
  type BlobStore,
  type ByteRange,
  base64ToHex,
  KeptBytesCheck,
  reprDigest,
  SHA256_HEX,
  UnsupportedMediaTypeError,
} from "./blob-store.js";

/** LEDGER_EVIDENCE_MAX's default: 256 MiB. */
export const DEFAULT_EVIDENCE_MAX = 256 * 1024 * 1024;
/** How long a direct upload's URL stays valid. */
const UPLOAD_SECONDS = 3600;
/** How long a redirect to the bytes (AWS) stays valid: enough to start, and resume, a download. */
const READ_SECONDS = 300;
/** Past the limit, this much more is read and dropped so the client sees the 413, then it is cut off. */
const DRAIN_LIMIT = 32 * 1024 * 1024;
/** A hash, a size and a media type: a few hundred bytes; more is not an upload request. */
const UPLOAD_REQUEST_BYTES = 16 * 1024;
/** Marks this server's one-upload bearer tokens apart from users' tokens. */
const UPLOAD_TOKEN_PREFIX = "upload.";

export interface EvidenceRouteDeps {
  store: BlobStore;
  /** Who may upload (writers): the same authenticator as the append. */
  authenticate: Authenticator;
  /** Who reads restricted bytes: in AWS a JWT checked in the Lambda (no authorizer on GETs). */
  readers?: AsyncAuthenticator;
  log: Logger;
  /** LEDGER_EVIDENCE_MAX. */
  maxBytes?: number;
  /** Signs this server's own upload URLs (locally); random per process when not given. */
  uploadSecret?: Uint8Array;
  /**
   * The public origin this server's own upload URLs start with (the ledger's, functions/ledger.ts:
   * LEDGER_PUBLIC_URL's origin, else the server's own address), never a request's Host. Not
   * needed where the store makes its own (S3's presigned PUTs).
   */
  publicUrl?: () => string;
  /** Where each restricted read is recorded before the bytes go out (functions/people/audit-log.ts). */
  audit: Pick<AuditLog, "recordEvidence">;
}

/** What a deployment configures of the evidence routes: the core adds the authenticator and the audit. */
export type EvidenceOptions = Omit<EvidenceRouteDeps, "authenticate" | "audit">;

/** The evidence routes as the pages get them: the desk reads through them as its signed-in user. */
export type PagesEvidence = Omit<EvidenceRouteDeps, "authenticate">;

/** `type/subtype` with optional parameters (RFC 9110 §8.3.1). */
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;.*)?$/;
/** Bodies these types announce are not raw evidence bytes (a form, or an HTML form's default). */
const NOT_RAW = /^(multipart\/form-data|application\/x-www-form-urlencoded)\b/i;

/** The media type evidence is posted with, normalised (type and subtype in lowercase). */
export function evidenceMediaType(raw: string | undefined): string {
  const value = raw?.trim() ?? "";
  const path = "Content-Type";
  if (value === "")
    throw new UnsupportedMediaTypeError(
      "Content-Type is required: the media type of the bytes; nothing was kept",
      [{ path, message: "is required (the media type of the bytes, e.g. image/jpeg)" }],
    );
  if (value.length > 255 || !MEDIA_TYPE.test(value))
    throw new UnsupportedMediaTypeError(
      `Content-Type ${JSON.stringify(value.slice(0, 100))} is not a media type`,
      [{ path, message: "must be a media type: type/subtype" }],
    );
  if (NOT_RAW.test(value))
    throw new UnsupportedMediaTypeError(
      "POST /evidence takes the raw bytes with their own media type, not a form; nothing was kept",
      [{ path, message: "must be the media type of the bytes themselves, not a form encoding" }],
    );
  const [essence = "", ...params] = value.split(";");
  return [essence.trim().toLowerCase(), ...params.map((p) => p.trim())].join("; ");
}

/** The SHA-256 an RFC 9530 `Repr-Digest` header declares (undefined without one). */
export function declaredDigest(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const members = header.split(",").map((m) => m.trim());
  for (const member of members) {
    const match = /^sha-256=:([A-Za-z0-9+/]{43}=):$/.exec(member);
    if (match?.[1]) return base64ToHex(match[1]);
  }
  if (
    members.some((m) => /^sha-256=/i.test(m)) ||
    !members.every((m) => /^[a-z0-9-]+=:[A-Za-z0-9+/=]*:$/.test(m))
  )
    throw new MalformedRequestError("Repr-Digest must be sha-256=:<base64 of 32 bytes>: (RFC 9530)", [
      { path: "Repr-Digest", message: "must be sha-256=:<base64 of the 32-byte SHA-256>:" },
    ]);
  // Only other algorithms: nothing here to check against.
  return undefined;
}

/**
 * The request's bytes, bounded: past `max` the rest is read (up to a drain limit) and dropped,
 * then the 413 is thrown, so the client reads the answer instead of a reset connection. An
 * empty body, and a client gone mid-body, end as problems too; whoever consumes this removes
 * what it wrote of them.
 */
async function* boundedBody(
  c: Context,
  max: number,
  log: Logger,
  bound = "LEDGER_EVIDENCE_MAX",
): AsyncGenerator<Uint8Array> {
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  const tooLarge = () =>
    new PayloadTooLargeError(`the evidence is over ${max} bytes (${bound}); nothing was kept`, [
      { path: "(body)", message: `must be at most ${max} bytes` },
    ]);
  if (declared > max) throw tooLarge();
  let total = 0;
  try {
    for await (const chunk of bodyChunks(c)) {
      total += chunk.byteLength;
      if (total <= max) yield chunk;
      else if (total > max + DRAIN_LIMIT) break;
    }
  } catch (error) {
    log.info("client closed the connection mid-upload; nothing was kept", {
      path: c.req.path,
      received: total,
      error: String(error),
    });
    throw new MalformedRequestError("the upload ended before its last byte; nothing was kept", [
      { path: "(body)", message: "ended early (the connection was closed)" },
    ]);
  }
  if (total > max) throw tooLarge();
  if (total === 0)
    throw new MalformedRequestError("the body is empty: there are no bytes to keep", [
      { path: "(body)", message: "must hold the evidence bytes" },
    ]);
}

const UploadRequest = z.strictObject({
  sha256: z.string().check(z.regex(SHA256_HEX, "must be 64 lowercase hex digits")),
  size: z.int().check(z.gte(1, "must be at least 1 byte")),
  mediaType: z.string(),
  access: z.optional(z.enum(["public", "restricted"])),
});

/**
 * `?access=restricted` on an upload: the bytes are restricted before they are held, not only
 * once a restricted capture names them (a victim's photo is never public in between).
 */
function accessQuery(c: Context): Access | undefined {
  const access = c.req.query("access");
  if (access === undefined || access === "public" || access === "restricted") return access;
  const message = "must be public or restricted";
  throw new MalformedRequestError(`access ${message}`, [{ path: "query.access", message }]);
}

const sha256Param = (c: Context): string => {
  const sha256 = c.req.param("sha256") ?? "";
  if (!SHA256_HEX.test(sha256)) {
    const message = "must be 64 lowercase hex digits (the SHA-256 of the bytes)";
    throw new MalformedRequestError(`${JSON.stringify(sha256.slice(0, 80))} ${message}`, [
      { path: "path.sha256", message },
    ]);
  }
  return sha256;
};

/** One byte range of `size` bytes (RFC 9110 §14), null: the whole; "unsatisfiable": 416. */
export function parseRange(header: string | undefined, size: number): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: the whole representation is a valid answer (§14.2).
  if (!match || (match[1] === "" && match[2] === "")) return null;
  const [, first = "", last = ""] = match;
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return "unsatisfiable";
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}

/**
 * POST /evidence, POST /evidence/uploads, PUT /evidence/uploads/{sha256} (this server's own
 * direct upload) and GET /evidence/{sha256} (CONTRACT.md "Evidence").
 */
export function evidenceRoutes(deps: EvidenceRouteDeps) {
  const { store, log } = deps;
  const max = deps.maxBytes ?? DEFAULT_EVIDENCE_MAX;
  const readers = deps.readers ?? asAsync(deps.authenticate);
  const secret = deps.uploadSecret ?? randomBytes(32);
  const kept = new KeptBytesCheck(store);
  const app = new Hono();

  const stored = (
    c: Context,
    result: { sha256: string; size: number; mediaType: string; created: boolean },
  ) => {
    const href = `/evidence/${result.sha256}`;
    if (result.created) c.header("Location", href);
    return c.json(
      { sha256: result.sha256, size: result.size, mediaType: result.mediaType, href },
      result.created ? 201 : 200,
    );
  };

  app.post("/evidence", acceptQuery("access"), async (c) => {
    const writer = requireRole(deps.authenticate, c, "writer", "an upload of evidence");
    const mediaType = evidenceMediaType(c.req.header("content-type"));
    const sha256 = declaredDigest(c.req.header("repr-digest"));
    const access = accessQuery(c);
    const result = await store.put(boundedBody(c, max, log), {
      mediaType,
      max,
      ...(sha256 ? { sha256 } : {}),
      ...(access ? { access } : {}),
    });
    log.info("evidence stored", {
      sha256: result.sha256,
      size: result.size,
      created: result.created,
      by: writer.name,
    });
    return stored(c, result);
  });

  const uploadSignature = (
    sha256: string,
    size: number,
    mediaType: string,
    expires: number,
    access: string,
  ) =>
    createHmac("sha256", secret).update(`${sha256}\n${size}\n${mediaType}\n${expires}\n${access}`).digest();

  app.post("/evidence/uploads", acceptQuery(), async (c) => {
    requireRole(deps.authenticate, c, "writer", "an upload of evidence");
    const parsed = UploadRequest.safeParse(await readJsonBody(c, UPLOAD_REQUEST_BYTES));
    if (!parsed.success) {
      const errors = toFieldErrors(parsed.error);
      throw new InvalidUploadRequestError(
        `${errors.map((e) => `${e.path} ${e.message}`).join("; ")}; nothing was kept`,
        errors,
      );
    }
    const { sha256, size, access = "public" } = parsed.data;
    let mediaType: string;
    try {
      mediaType = evidenceMediaType(parsed.data.mediaType);
    } catch {
      const message = "must be a media type: type/subtype, not a form encoding";
      throw new InvalidUploadRequestError(`mediaType ${message}`, [{ path: "mediaType", message }]);
    }
    const direct = await store.directUpload({
      sha256,
      size,
      mediaType,
      expiresInSeconds: UPLOAD_SECONDS,
      ...(access === "restricted" ? { access } : {}),
    });
    if (direct) return c.json(direct, 201);
    if (size > max) {
      throw new PayloadTooLargeError(`the evidence is over ${max} bytes (LEDGER_EVIDENCE_MAX)`, [
        { path: "size", message: `must be at most ${max} bytes` },
      ]);
    }
    const expires = Math.floor(Date.now() / 1000) + UPLOAD_SECONDS;
    const sig = uploadSignature(sha256, size, mediaType, expires, access).toString("base64url");
    const query = new URLSearchParams({
      size: String(size),
      type: mediaType,
      expires: String(expires),
      ...(access === "restricted" ? { access } : {}),
    });
    if (!deps.publicUrl) throw new Error("this server's own upload URLs need its public origin (publicUrl)");
    return c.json(
      {
        // A whole URL, as a presigned S3 PUT is: the client PUTs to it as given.
        uploadUrl: `${deps.publicUrl()}/evidence/uploads/${sha256}?${query}`,
        // A bearer token good for this one upload: the client PUTs with these headers alone.
        headers: { "content-type": mediaType, authorization: `Bearer ${UPLOAD_TOKEN_PREFIX}${sig}` },
        expiresAt: new Date(expires * 1000).toISOString(),
      },
      201,
    );
  });

  // This server's direct upload. Its bearer token is an HMAC of what may be put (hash, size, media
  // type, expiry), made by POST /evidence/uploads for a writer: as a presigned S3 PUT's signature is.
  app.put("/evidence/uploads/:sha256", acceptQuery("size", "type", "expires", "access"), async (c) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
    if (!bearer.startsWith(UPLOAD_TOKEN_PREFIX)) {
      c.header("WWW-Authenticate", 'Bearer realm="incident-ledger"');
      throw new UnauthorizedError(
        "this upload needs the Authorization header POST /evidence/uploads gave; nothing was kept",
      );
    }
    const sha256 = sha256Param(c);
    const size = Number(c.req.query("size"));
    const mediaType = c.req.query("type") ?? "";
    const expires = Number(c.req.query("expires"));
    const access = c.req.query("access") === "restricted" ? "restricted" : "public";
    const given = Buffer.from(bearer.slice(UPLOAD_TOKEN_PREFIX.length), "base64url");
    const expected = uploadSignature(sha256, size, mediaType, expires, access);
    if (
      given.length !== expected.length ||
      !timingSafeEqual(given, expected) ||
      !Number.isSafeInteger(size)
    ) {
      throw new ForbiddenError("this upload URL is not one this server made; nothing was kept");
    }
    if (expires * 1000 < Date.now())
      throw new ForbiddenError("this upload URL has expired; ask for another; nothing was kept");
    const sent = evidenceMediaType(c.req.header("content-type"));
    if (sent !== mediaType)
      throw new UnsupportedMediaTypeError(`Content-Type must be ${mediaType}, as the upload was asked for`, [
        { path: "Content-Type", message: `must be ${mediaType}` },
      ]);
    const bound = size < max ? "the size this upload declared" : "LEDGER_EVIDENCE_MAX";
    const result = await store.put(boundedBody(c, Math.min(max, size), log, bound), {
      mediaType,
      max,
      sha256,
      size,
      access,
    });
    log.info("evidence stored", {
      sha256: result.sha256,
      size: result.size,
      created: result.created,
      direct: true,
    });
    return stored(c, result);
  });

  // `/evidence/uploads` is the POST route's path, not a hash: no GET there (a 405 says so).
  app.get("/evidence/:sha256{(?!uploads$)[^/]+}", acceptQuery(), async (c) => {
    const sha256 = sha256Param(c);
    const info = await store.head(sha256);
    if (!info) throw new NotFoundError(`no evidence ${sha256} is held`);
    const restricted = info.access === "restricted";
    if (restricted) {
      const who = await requireRoleAsync(readers, c, "restricted-reader", "restricted evidence");
      // The record of who read what when, before a byte goes out: an item in the audit table
      // (readers may add, never change), and a log line the alarm on bursts of reads counts.
      const at = new Date().toISOString();
      const range = c.req.header("range");
      await deps.audit.recordEvidence({
        who: who.name,
        sha256,
        via: "GET /evidence/{sha256}",
        at,
        ...(range ? { range } : {}),
      });
      log.info("restricted evidence read", {
        audit: "restricted-evidence-read",
        reader: who.name,
        sha256,
        range: range ?? null,
        at,
      });
    }
    const disposition = `attachment; filename="${downloadName(sha256, info.mediaType)}"`;
    const etag = `"${sha256}"`;
    const common = {
      ETag: etag,
      "Repr-Digest": reprDigest(sha256),
      "Accept-Ranges": "bytes",
      // Never compressed on the way (no-transform): Content-Length and ranges are of these bytes.
      "Cache-Control": restricted
        ? "private, no-store, no-transform"
        : "public, max-age=31536000, immutable, no-transform",
      // Captured pages are someone else's HTML: never run on this origin.
      "Content-Security-Policy": "sandbox",
      "Content-Disposition": disposition,
    };
    const elsewhere = await store.readUrl(sha256, {
      mediaType: info.mediaType,
      disposition,
      expiresInSeconds: READ_SECONDS,
      access: restricted ? "restricted" : "public",
    });
    if (elsewhere) {
      return c.body(null, 307, { ...common, Location: elsewhere, "Cache-Control": "private, no-store" });
    }
    if (
      c.req
        .header("if-none-match")
        ?.split(",")
        .some((t) => t.trim() === etag)
    ) {
      return c.body(null, 304, common);
    }
    // A Range under an If-Range that is not this strong ETag is ignored (RFC 9110 §13.1.5): the
    // client's partial copy is of other bytes, so it gets the whole. A date never matches: these
    // bytes have no Last-Modified to compare it with, and a weak tag never matches strongly.
    const ifRange = c.req.header("if-range");
    const range =
      ifRange === undefined || ifRange.trim() === etag ? parseRange(c.req.header("range"), info.size) : null;
    if (range === "unsatisfiable") {
      return c.body(null, 416, { ...common, "Content-Range": `bytes */${info.size}` });
    }
    const headers = { ...common, "Content-Type": info.mediaType };
    await kept.check(info);
    if (range) {
      return c.body(await store.read(sha256, range), 206, {
        ...headers,
        "Content-Range": `bytes ${range.start}-${range.end}/${info.size}`,
        "Content-Length": String(range.end - range.start + 1),
      });
    }
    return c.body(await store.read(sha256), 200, { ...headers, "Content-Length": String(info.size) });
  });

  return app;
}
