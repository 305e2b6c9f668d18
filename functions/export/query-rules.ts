import type { Context } from "hono";
import { MalformedRequestError } from "../errors.js";
import { intQuery } from "../http/params.js";
import type { LogReader } from "./log-reader.js";

/**
 * The tree size an export is cut at: `treeSize` if given (never beyond the latest checkpoint:
 * leaves past it are not signed yet, so the bytes could not be checked), else the checkpoint's.
 * With no checkpoint yet the log is empty: size 0.
 */
export async function exportTreeSize(c: Context, log: LogReader): Promise<number> {
  const asked = intQuery(c, "treeSize", { min: 0, max: Number.MAX_SAFE_INTEGER });
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
