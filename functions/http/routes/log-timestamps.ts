import { type Context, Hono } from "hono";
import { MalformedRequestError, NotFoundError } from "../../errors.js";
import type { LogStore } from "../../log/log-store.js";
import { type StoredTimestamp, TIMESTAMP_PAGE_MAX, timestampsOf } from "../../log/timestamp-store.js";
import { acceptQuery, intQuery, wholeNumber } from "../params.js";

export interface TimestampRouteDeps {
  logStore: LogStore;
}

const TREE_SIZE = /^[1-9][0-9]{0,15}$/;

/** The cursor is the tree size of the last token the previous page held (pages go newest first). */
function cursorOf(c: Context): number | undefined {
  const raw = c.req.query("cursor");
  if (raw === undefined) return undefined;
  if (TREE_SIZE.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw);
  const message = "is not a cursor this archive gave out; pass nextCursor from the previous page unchanged";
  throw new MalformedRequestError(`cursor ${message}`, [{ path: "query.cursor", message }]);
}

const entry = (t: StoredTimestamp) => ({
  treeSize: t.treeSize,
  checkpoint: t.checkpoint,
  genTime: t.genTime,
  tsa: t.tsa,
  href: `/log/timestamps/${t.treeSize}`,
});

/**
 * RFC 3161 tokens over the log's checkpoints (CONTRACT.md "Trusted time"): the list, newest
 * first, and each token as the DER response the TSA sent.
 */
export function timestampRoutes(deps: TimestampRouteDeps) {
  const store = timestampsOf(deps.logStore);
  const app = new Hono();

  app.get("/log/timestamps", acceptQuery("limit", "cursor"), async (c) => {
    const limit = intQuery(c, "limit", {
      min: 1,
      max: TIMESTAMP_PAGE_MAX,
      fallback: TIMESTAMP_PAGE_MAX,
    }) as number;
    const before = cursorOf(c);
    const page = await store.page({ ...(before !== undefined ? { before } : {}), limit });
    const items = page.items.map(entry);
    c.header("Cache-Control", "no-cache");
    if (page.next === null) return c.json({ items });
    const nextCursor = String(page.next);
    const next = new URL(c.req.url);
    next.searchParams.set("cursor", nextCursor);
    c.header("Link", `<${next.href}>; rel="next"`);
    return c.json({ items, nextCursor });
  });

  app.get("/log/timestamps/:treeSize", acceptQuery(), async (c) => {
    const raw = c.req.param("treeSize");
    const treeSize = wholeNumber(raw, "path.treeSize", { min: 1, max: Number.MAX_SAFE_INTEGER });
    const stamp = await store.at(treeSize);
    if (!stamp) throw new NotFoundError(`no time-stamp token over the checkpoint of tree size ${raw}`);
    return c.body(stamp.token as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": "application/timestamp-reply",
      "Content-Disposition": `attachment; filename="checkpoint-${raw}.tsr"`,
      // A token over a checkpoint never changes.
      "Cache-Control": "public, max-age=31536000, immutable",
    });
  });

  return app;
}
