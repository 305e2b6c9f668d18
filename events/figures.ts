import type { Figure } from "./schemas.js";

export interface Bounds {
  low: number;
  /** `null`: open-ended ("at least 50" says nothing about how many more). */
  high: number | null;
  /** True for "about N": the bounds are the stated value, not a guarantee. */
  approximate: boolean;
}

/** What "dozens" and "hundreds" commit a speaker to, as the contract fixes them. */
export const WORD_BOUNDS = { dozens: { low: 24, high: 99 }, hundreds: { low: 200, high: 999 } } as const;

export function figureBounds(figure: Figure): Bounds {
  if ("min" in figure) return { low: figure.min, high: figure.max, approximate: false };
  if (!("value" in figure)) return { ...WORD_BOUNDS[figure.qualifier], approximate: true };
  const v = figure.value;
  switch (figure.qualifier) {
    case "exact":
      return { low: v, high: v, approximate: false };
    case "at-least":
      return { low: v, high: null, approximate: false };
    case "at-most":
      return { low: 0, high: v, approximate: false };
    case "about":
      return { low: v, high: v, approximate: true };
  }
}

/**
 * The range over several sources' figures: the largest lower bound anyone gives, and the
 * largest upper bound — open (`null`) as soon as one source gives none. So `high` is never
 * below `low`.
 */
export function combineBounds(figures: readonly Figure[]): { low: number | null; high: number | null } {
  if (figures.length === 0) return { low: null, high: null };
  let low = 0;
  let high: number | null = 0;
  for (const f of figures) {
    const b = figureBounds(f);
    low = Math.max(low, b.low);
    high = high === null || b.high === null ? null : Math.max(high, b.high);
  }
  return { low, high };
}

/** A short human wording of a figure ("at least 50", "15–20", "dozens"). */
export function describeFigure(figure: Figure): string {
  if ("min" in figure) return `${figure.min}–${figure.max}`;
  if (!("value" in figure)) return figure.qualifier;
  const v = figure.value.toLocaleString("en-US");
  switch (figure.qualifier) {
    case "exact":
      return v;
    case "at-least":
      return `at least ${v}`;
    case "at-most":
      return `at most ${v}`;
    case "about":
      return `about ${v}`;
  }
}
