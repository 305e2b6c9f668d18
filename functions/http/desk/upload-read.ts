import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import busboy from "busboy";
import type { Context } from "hono";
import { ClientClosedError, LedgerError, MalformedRequestError, PayloadTooLargeError } from "../../errors.js";
import type { BlobStore, StagedBlob } from "../../evidence/blob-store.js";
import { evidenceMediaType } from "../../evidence/evidence-routes.js";
import { bodyChunks, closedByClient } from "../read-body.js";

/** A file chosen in the desk's upload form. */
export interface ChosenFile {
  /** The name the browser gave: never stored. */
  name: string;
  /** The media type the browser gave, as POST /evidence reads one (`application/octet-stream` for none usable). */
  mediaType: string;
  /**
   * Its bytes, hashed as they arrived, staged where the evidence store stages every upload:
   * held only once `keep()` is called, and whoever read the form discards them. Null: the file
   * was over the limit, and nothing of it is staged.
   */
  staged: StagedBlob | null;
}

export type UploadRead =
  | {
      kind: "read";
      values: Map<string, string>;
      file: ChosenFile | null;
      /** Text fields longer than UPLOAD_FIELDS_BYTES: their values are cut there, to be refused. */
      tooLong: string[];
    }
  | { kind: "too-large" };

/** Room for the form's text fields (source, title, token…) besides the file, within the body. */
export const UPLOAD_FIELDS_BYTES = 64 * 1024;
/** How far a file part's bytes may run ahead of the store writing them. */
const FILE_AHEAD = 1024 * 1024;
/** Past the limit this much more is read and dropped, so the browser reads the answer; then it is cut off. */
const DRAIN_LIMIT = 32 * 1024 * 1024;

/**
 * A posted `multipart/form-data` form, parsed as it arrives: its text fields, and the file of
 * `fileField` streamed into the evidence store's staging place (at most `max` bytes), never held
 * whole in memory. The file may come before the fields the event needs (browsers send the
 * parts in the page's order), so its bytes are only staged: the caller checks the whole event,
 * then keeps or discards them. A body over the limit is drained, then cut off, and nothing of
 * it is left staged: the person chooses a smaller file.
 */
export async function readUpload(
  c: Context,
  options: { max: number; fileField: string; store: BlobStore },
): Promise<UploadRead> {
  const { max, fileField, store } = options;
  const limit = max + UPLOAD_FIELDS_BYTES;
  if (Number(c.req.header("content-length") ?? Number.NaN) > limit) {
    await drain(c);
    return { kind: "too-large" };
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": c.req.header("content-type") ?? "" },
      defParamCharset: "utf8",
      // A file part buffers up to this much ahead of the store: the parser and the disk overlap.
      fileHwm: FILE_AHEAD,
      // One byte past the limit reaches the store, which refuses it; the rest of the file is skipped.
      limits: { fileSize: max + 1, fieldSize: UPLOAD_FIELDS_BYTES },
    });
  } catch {
    throw unreadable();
  }
  const values = new Map<string, string>();
  let file: (ChosenFile & { failed?: unknown }) | null = null;
  const staging: Promise<void>[] = [];
  const tooLong: string[] = [];
  parser.on("field", (name, value, info) => {
    if (info.valueTruncated) tooLong.push(name);
    values.set(name, value.replace(/\r\n?/g, "\n"));
  });
  parser.on("file", (name, stream, info) => {
    // Destroying the parser (a body over the limit) destroys the part being read with the same
    // error, which the parser's own end already reports: unheard here, it would be thrown.
    stream.on("error", () => {});
    if (name !== fileField || file) {
      stream.resume();
      return;
    }
    const chosen: ChosenFile & { failed?: unknown } = {
      name: info.filename ?? "",
      mediaType: mediaTypeOf(info.mimeType),
      staged: null,
    };
    file = chosen;
    staging.push(
      store
        .stage(partBytes(stream), { mediaType: chosen.mediaType, max })
        .then(
          (staged) => {
            chosen.staged = staged;
          },
          (error) => {
            chosen.failed = error;
          },
        )
        // Whatever the store did not read is read and dropped: the parser goes on to the next part.
        .finally(() => stream.resume()),
    );
  });
  const parsed = finished(parser);
  parsed.catch(() => undefined);
  const settled = async () => {
    await Promise.allSettled(staging);
    return file as (ChosenFile & { failed?: unknown }) | null;
  };

  let total = 0;
  let over = false;
  let failure: unknown = null;
  try {
    for await (const chunk of bodyChunks(c)) {
      total += chunk.byteLength;
      if (total > limit && !over) {
        over = true;
        parser.destroy(new PayloadTooLargeError(`the form is over ${limit} bytes`));
      }
      if (over || failure) {
        if (total > limit + DRAIN_LIMIT) break;
        continue;
      }
      try {
        await write(parser, chunk);
      } catch (error) {
        failure = error;
      }
    }
    if (!over && !failure) {
      parser.end();
      await parsed.catch((error) => {
        failure = error;
      });
    }
  } catch (error) {
    parser.destroy(new Error("the body could not be read"));
    await (await settled())?.staged?.discard();
    if (error instanceof LedgerError || !closedByClient(c, error)) throw error;
    throw new ClientClosedError("the client closed the connection mid-upload; nothing was stored");
  }
  const chosen = await settled();
  if (over || failure) {
    await chosen?.staged?.discard();
    if (over) return { kind: "too-large" };
    throw unreadable();
  }
  if (chosen?.failed && !(chosen.failed instanceof PayloadTooLargeError)) throw chosen.failed;
  // No file chosen: the browser sends a part with no name and no bytes.
  if (chosen && chosen.name === "" && chosen.staged?.size === 0) {
    await chosen.staged.discard();
    return { kind: "read", values, file: null, tooLong };
  }
  return { kind: "read", values, file: chosen, tooLong };
}

/** A file part's bytes, read by the store; the store stopping early leaves the part to be drained, not destroyed. */
async function* partBytes(stream: Readable): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
  } finally {
    stream.resume();
  }
}

/** One chunk into the parser, once it has taken it (its file part's reader sets the pace), or its error. */
const write = (parser: busboy.Busboy, chunk: Uint8Array) =>
  new Promise<void>((resolve, reject) => {
    parser.once("error", reject);
    parser.write(chunk, (error) => {
      parser.off("error", reject);
      if (error) reject(error);
      else resolve();
    });
  });

/** Reads and drops up to the drain limit of a body that is over the limit. */
async function drain(c: Context): Promise<void> {
  let total = 0;
  try {
    for await (const chunk of bodyChunks(c)) {
      total += chunk.byteLength;
      if (total > DRAIN_LIMIT) break;
    }
  } catch (error) {
    if (!closedByClient(c, error)) throw error;
  }
}

/** The browser's media type for a file, as POST /evidence normalises one; a form encoding or nonsense is none. */
function mediaTypeOf(given: string): string {
  try {
    return evidenceMediaType(given);
  } catch {
    return "application/octet-stream";
  }
}

const unreadable = () =>
  new MalformedRequestError("the form could not be read as multipart/form-data; nothing was stored", [
    { path: "(body)", message: "must be the desk's upload form (multipart/form-data)" },
  ]);
