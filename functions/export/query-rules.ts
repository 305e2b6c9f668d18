import type { Context } from "hono";
import { MalformedRequestError } from "../errors.js";
import type { LogReader } from "./log-reader.js";

/** A decimal integer in [min, max], or undefined when absent. */
export function integerQuery(c: Context, name: string, min: number, max: number): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const value = /^-?\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const message = `must be a whole number from ${min} to ${max}`;
    throw new MalformedRequestError(`query parameter ${name} ${message}`, [
      { path: `query.${name}`, message },
    ]);
  }
  return value;
}

/**
 * The tree size an export is cut at: `treeSize` if given (never beyond the latest checkpoint:
 * leaves past it are not signed yet, so the bytes could not be checked), else the checkpoint's.
 * With no checkpoint yet the log is empty: size 0.
 */
export async function exportTreeSize(c: Context, log: LogReader): Promise<number> {
  const asked = integerQuery(c, "treeSize", 0, Number.MAX_SAFE_INTEGER);
  const size = (await log.latestCheckpoint())?.size ?? 0;
  if (asked === undefined) return size;
  if (asked > size) {
    const message = `must not exceed the latest checkpoint's tree size, ${size}`;
    throw new MalformedRequestError(`treeSize ${asked} is beyond the log: ${message}`, [
      { path: "query.treeSize", message },
    ]);
  }
  return asked;
}
