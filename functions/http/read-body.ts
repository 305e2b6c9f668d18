import type { Context } from "hono";
import { ClientClosedError, LedgerError, MalformedRequestError, PayloadTooLargeError } from "../errors.js";
import { parseBodyJson } from "./strict-json.js";

/** Past this, an oversized body is no longer drained but cut off. */
const DRAIN_LIMIT = 32 * 1024 * 1024;

/** The body's bytes, as the standard stream gives them (locally and in Lambda alike). */
export async function* bodyChunks(c: Context): AsyncGenerator<Uint8Array> {
  const stream = c.req.raw.body;
  if (!stream) return;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Reads the body as text up to `max` bytes. An oversized body is read to its end and
 * dropped before the 413 goes out: a server that answers while the client is still sending
 * makes most HTTP clients report a broken connection instead of the 413.
 */
export async function readBodyText(c: Context, max: number): Promise<string> {
  try {
    return await readWithin(c, max);
  } catch (error) {
    if (error instanceof LedgerError || !closedByClient(c, error)) throw error;
    throw new ClientClosedError(
      "the client closed the connection before its body was read; nothing was stored",
    );
  }
}

/** Whether a failed read of the body was the client going away (locally: its socket closed mid-body). */
export function closedByClient(c: Context, error: unknown): boolean {
  const incoming = (
    c.env as { incoming?: { destroyed?: boolean; readableAborted?: boolean; complete?: boolean } }
  )?.incoming;
  if (incoming && (incoming.readableAborted || (incoming.destroyed && incoming.complete === false)))
    return true;
  const e = error as { code?: string; message?: string; cause?: { code?: string } } | null;
  const code = e?.code ?? e?.cause?.code;
  return (
    code === "ECONNRESET" ||
    code === "ERR_STREAM_PREMATURE_CLOSE" ||
    /^(aborted|terminated)$/i.test(e?.message ?? "")
  );
}

async function readWithin(c: Context, max: number): Promise<string> {
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  const tooLarge = () => new PayloadTooLargeError(`the body is over ${max / 1024} KiB; nothing was stored`);
  if (declared > DRAIN_LIMIT) throw tooLarge();
  // The common case, a declared length within the limit: read whole by the framework.
  if (declared <= max) return decodeUtf8(new Uint8Array(await c.req.arrayBuffer()));
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of bodyChunks(c)) {
    total += chunk.byteLength;
    if (total <= max) chunks.push(chunk);
    else if (total > DRAIN_LIMIT) throw tooLarge();
  }
  if (total > max) throw tooLarge();
  return decodeUtf8(Buffer.concat(chunks));
}

/**
 * The body as JSON, up to `max` bytes: 413 over it, 400 when it is not UTF-8, not JSON, or
 * repeats a member name (strict-json.ts).
 */
export async function readJsonBody(c: Context, max: number): Promise<unknown> {
  return parseBodyJson(await readBodyText(c, max));
}

/** Invalid UTF-8 is refused, not silently replaced by U+FFFD in the record. */
function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new MalformedRequestError("the body is not valid UTF-8; nothing was stored", [
      { path: "(body)", message: "is not valid UTF-8" },
    ]);
  }
}
