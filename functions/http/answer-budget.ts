import { utf8Length } from "../../events/summarize.js";

/**
 * A page of stored events (…/events, /feed) is at most this many bytes of JSON, whatever its
 * `limit`: events are up to 256 KiB each, and an answer must stay within what a reader (and
 * Lambda's 6 MB) takes. A page cut short still says where the next one starts.
 */
export const EVENT_PAGE_BYTES = 1000 * 1024;

/**
 * Counts what a page holds, item by item (each as its JSON text): `add` is false once an item
 * would pass the budget (never for the first).
 */
export function byteBudget(max = EVENT_PAGE_BYTES) {
  let used = 0;
  let items = 0;
  return {
    add(itemJson: string): boolean {
      const size = utf8Length(itemJson) + 1;
      if (items > 0 && used + size > max) return false;
      used += size;
      items++;
      return true;
    },
  };
}

/**
 * A listing's answer (summaries, or what a source page makes of them) is at most this many
 * bytes of JSON, whatever its `limit`: a long incident's summary alone may be hundreds of KB.
 * Pages that draw a line an incident (the dashboard, the map) are not cut by it.
 */
export const LISTING_PAGE_BYTES = 480 * 1024;

/** How many of `items`, from the first, fit `max` bytes as JSON (always the first). */
export function countWithin(items: readonly unknown[], max: number): number {
  const budget = byteBudget(max);
  let kept = 0;
  while (kept < items.length && budget.add(JSON.stringify(items[kept]))) kept++;
  return kept;
}
