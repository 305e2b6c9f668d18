import { createHash } from "node:crypto";
import type { Context } from "hono";
import { MalformedRequestError } from "../../errors.js";
import { bodyChunks } from "../read-body.js";

/** A file chosen in the desk's upload form: its bytes, hashed as they arrived. */
export interface ChosenFile {
  /** The name the browser gave: shown back to the person, never stored. */
  name: string;
  /** The media type the browser gave, or `application/octet-stream` when it named none. */
  mediaType: string;
  /** The bytes as the form's parser holds them (never copied again: hashed and sent as a stream). */
  blob: Blob;
  size: number;
  sha256: string;
}

export type UploadRead =
  | { kind: "read"; values: Map<string, string>; file: ChosenFile | null }
  | { kind: "too-large" };

/** Room for the form's text fields (source, title, token…) besides the file, within the body. */
export const UPLOAD_FIELDS_BYTES = 64 * 1024;
/** Past the limit this much more is read and dropped, so the browser reads the answer; then it is cut off. */
const DRAIN_LIMIT = 32 * 1024 * 1024;

/**
 * A posted `multipart/form-data` form of at most `max` bytes: its text fields, and the file of
 * `fileField` (null when none was chosen: the browser sends a part with no name and no bytes).
 * Over the limit, nothing of it is read into the form: the person chooses a smaller file.
 */
export async function readUpload(c: Context, max: number, fileField: string): Promise<UploadRead> {
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (!(declared > max)) {
    for await (const chunk of bodyChunks(c)) {
      total += chunk.byteLength;
      if (total <= max) chunks.push(chunk);
      else if (total > max + DRAIN_LIMIT) break;
    }
  } else {
    for await (const chunk of bodyChunks(c)) {
      total += chunk.byteLength;
      if (total > DRAIN_LIMIT) break;
    }
  }
  if (declared > max || total > max) return { kind: "too-large" };
  let form: FormData;
  // Each chunk is let go once the parser has it: the body is held once, by the parser.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  try {
    form = await new Response(body, {
      headers: { "content-type": c.req.header("content-type") ?? "" },
    }).formData();
  } catch {
    throw new MalformedRequestError("the form could not be read as multipart/form-data; nothing was stored", [
      { path: "(body)", message: "must be the desk's upload form (multipart/form-data)" },
    ]);
  }
  const values = new Map<string, string>();
  let file: ChosenFile | null = null;
  for (const [name, part] of form) {
    if (typeof part === "string") values.set(name, part.replace(/\r\n?/g, "\n"));
    else if (name === fileField && (part.name !== "" || part.size > 0)) {
      const hash = createHash("sha256");
      for await (const chunk of part.stream()) hash.update(chunk);
      file = {
        name: part.name,
        mediaType: part.type || "application/octet-stream",
        blob: part,
        size: part.size,
        sha256: hash.digest("hex"),
      };
    }
  }
  return { kind: "read", values, file };
}
