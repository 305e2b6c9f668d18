import { Hono } from "hono";
import type { FeedReader } from "../../export/feed-reader.js";
import type { LogReader } from "../../export/log-reader.js";
import { byteBudget } from "../answer-budget.js";
import { acceptQuery, intQuery } from "../params.js";

export interface FeedRoutesDeps {
  feed: FeedReader;
  logReader: LogReader;
}

export const FEED_MAX_LIMIT = 1000;

/**
 * GET /feed: every stored event in log order, for mirrors. Paged by log index up to the latest
 * checkpoint, so that every item a mirror receives can be proved against a signed tree.
 */
export function feedRoutes({ feed, logReader }: FeedRoutesDeps) {
  const app = new Hono();
  app.get("/feed", acceptQuery("after", "limit"), async (c) => {
    const after = intQuery(c, "after", { min: -1, max: Number.MAX_SAFE_INTEGER, fallback: -1 }) as number;
    const limit = intQuery(c, "limit", { min: 1, max: FEED_MAX_LIMIT, fallback: 100 }) as number;
    const size = (await logReader.latestCheckpoint())?.size ?? 0;
    const to = Math.min(size, after + 1 + limit);
    // Each event as it is stored (the text its hash covers), written into the answer unparsed.
    const items: string[] = [];
    let last = -1;
    const budget = byteBudget();
    if (after + 1 < to)
      for await (const { index, eventJson } of feed.entries(after + 1, to)) {
        const item = `{"index":${index},"event":${eventJson}}`;
        if (!budget.add(item)) break;
        items.push(item);
        last = index;
      }
    const next = items.length > 0 && last + 1 < size ? last : null;
    return c.body(`{"items":[${items.join(",")}],"next":${next}}`, 200, {
      "content-type": "application/json",
    });
  });
  return app;
}
