import type { Context } from "hono";
import { PayloadTooLargeError } from "../errors.js";

/** Past this, an oversized body is no longer drained but cut off. */
const DRAIN_LIMIT = 32 * 1024 * 1024;

/**
 * Reads the body as text up to `max` bytes. An oversized body is read to its end and
 * dropped before the 413 goes out: a server that answers while the client is still sending
 * makes most HTTP clients report a broken connection instead of the 413.
 */
export async function readBodyText(c: Context, max: number): Promise<string> {
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  const tooLarge = () => new PayloadTooLargeError(`the body is over ${max / 1024} KiB; nothing was stored`);
  const stream = c.req.raw.body;
  if (!stream) return "";
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total <= max) chunks.push(value);
    else if (total > DRAIN_LIMIT || declared > DRAIN_LIMIT) {
      await reader.cancel();
      throw tooLarge();
    }
  }
  if (total > max) throw tooLarge();
  return Buffer.concat(chunks).toString("utf8");
}
