/**
 * What one incident page draws at most, whatever was posted, so that it stays under 1 MB: the
 * charts share a number of points and range steps, the source lists a number of rows, and so
 * on; the rest is one link away (the JSON lists, the timeline's older pages).
 */
export const PAGE_CHART_POINTS = 64;
export const PAGE_BAND_STEPS = 128;
export const PAGE_SOURCE_ROWS = 64;
/** Denials drawn, the newest; each with its newest assessments. */
export const PAGE_DENIALS = 5;
export const PAGE_ASSESSMENTS = 3;
/** Bytes of event JSON one timeline page shows at most (at least one event). */
export const TIMELINE_BYTES = 128 * 1024;

/** One part's share of a budget over `parts` parts, within [min, max]. */
export function share(total: number, parts: number, max: number, min = 1): number {
  return Math.max(min, Math.min(max, Math.floor(total / Math.max(1, parts))));
}

/** The contract's bound on an incident page, whatever was posted. */
export const PAGE_MAX_BYTES = 1024 * 1024;
