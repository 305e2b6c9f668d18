import type { Figure } from "./schemas.js";

/**
 * Point estimates of a casualty category, by the rules of docs/reference/codebook.md, section
 * "Best estimates": each eligible source gives one value per rule, and the category's estimate
 * combines them. Eligible is decided by the caller (each source's latest live report whose
 * latest assessment is not `false`); here only numbers.
 */

/** The codebook's "Per-figure rule (best)": the value a figure stands for in a best estimate. */
export function bestValue(figure: Figure): number {
  if ("min" in figure) return figure.min;
  if (!("value" in figure)) return figure.qualifier === "dozens" ? 24 : 200;
  return figure.qualifier === "at-most" ? 0 : figure.value;
}

/** The codebook's "Per-figure rule (acled)": ACLED's most conservative reading of a figure. */
export function acledValue(figure: Figure): number {
  if ("min" in figure) return figure.min;
  if (!("value" in figure)) return figure.qualifier === "dozens" ? 12 : 100;
  return figure.qualifier === "at-most" ? 0 : figure.value;
}

/** The codebook's "Combining sources (best)": the lower median of the sources' best values. */
export function lowerMedian(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

export interface Estimates {
  /** null: no eligible source. */
  best: number | null;
  acled: number | null;
  /** The codebook's "Combining sources (lowest)": never above `best` (UCDP GED's `low`). */
  lowest: number | null;
}

/** The codebook's "Best estimates": `best`, `acled` and `lowest` over the eligible sources' figures. */
export function estimate(figures: readonly Figure[]): Estimates {
  if (figures.length === 0) return { best: null, acled: null, lowest: null };
  const best = figures.map(bestValue);
  return {
    best: lowerMedian(best),
    // "Combining sources (acled)": the smallest, ACLED's most conservative estimate.
    acled: Math.min(...figures.map(acledValue)),
    // "Combining sources (lowest)": the smallest of the values `best` is the lower median of,
    // so never above it.
    lowest: Math.min(...best),
  };
}
