import { describeFigure, figureBounds } from "../../../events/figures.js";
import { ownValue } from "../../../events/own-keys.js";
import type { Figure } from "../../../events/schemas.js";
import type { CasualtySummary, Summary } from "../../../events/summarize.js";
import type { BandStep, IncidentState } from "../../../events/summary.js";
import { orderCategories } from "./format.js";

/**
 * What the casualty charts draw, computed from the events alone (no SVG here), so the
 * drawing stays a thin layer and the numbers can be checked on their own.
 */

export interface ChartPoint {
  eventId: string;
  version: number;
  recordedAt: string;
  /** The source, as the summary groups them: `attributedTo.name`. */
  source: string;
  publisher: string;
  figure: Figure;
  /** The figure in the archive's words ("at least 50"). */
  words: string;
  /** Where the marker sits: the stated value when there is one ("at most 50" → 50), else the low bound. */
  at: number;
  low: number;
  /** null: open-ended ("at least 50" gives no upper bound). */
  high: number | null;
  /** Retracted in the view being shown (a later retraction is not known to a past view). */
  retracted: boolean;
}

export type { BandStep } from "../../../events/summary.js";

export interface CategoryChart {
  category: string;
  summary: CasualtySummary;
  points: ChartPoint[];
  /** Source names in the order they first reported this category (the legend's order). */
  sources: string[];
  band: readonly BandStep[];
}

/** Points drawn per chart at most, whatever the number of sources (page weight). */
export const MAX_CHART_POINTS = 48;

/**
 * At most MAX_CHART_POINTS of a chart's points, in version order: first each source's latest
 * (the most recent sources first), then the reports that moved the range, newest first.
 */
function pickPoints(points: ChartPoint[]): ChartPoint[] {
  const newestFirst = [...points].sort((a, b) => b.version - a.version);
  const latest = new Map<string, ChartPoint>();
  for (const p of newestFirst) if (!latest.has(p.source)) latest.set(p.source, p);
  const picked = new Set([...latest.values()].slice(0, MAX_CHART_POINTS));
  for (const p of newestFirst) {
    if (picked.size >= MAX_CHART_POINTS) break;
    picked.add(p);
  }
  return [...picked].sort((a, b) => a.version - b.version);
}

/**
 * One chart per category of the summary, drawn from what the projection keeps for it (so the
 * page costs the same on the 20th event as on the 20,000th): per source, the reports that moved
 * the summary's range and its latest one, at most CHART_MARKS_KEPT; the latest steps of the
 * range itself. `state` is the fold state the summary was made from.
 */
export function casualtyCharts(state: IncidentState, summary: Summary): CategoryChart[] {
  const retracted = new Set(summary.retractedEventIds);
  return orderCategories(Object.keys(summary.casualties)).map((category) => {
    const entry = ownValue(state.casualties, category);
    const sources = Object.keys(entry?.sources ?? {});
    const points: ChartPoint[] = [];
    for (const [source, kept] of Object.entries(entry?.sources ?? {}))
      for (const mark of kept.marks) {
        const bounds = figureBounds(mark.figure);
        points.push({
          eventId: mark.eventId,
          version: mark.version,
          recordedAt: mark.recordedAt,
          source,
          publisher: mark.publisher,
          figure: mark.figure,
          words: describeFigure(mark.figure),
          at: "value" in mark.figure ? mark.figure.value : bounds.low,
          low: bounds.low,
          high: bounds.high,
          retracted: retracted.has(mark.eventId),
        });
      }
    const drawn = pickPoints(points);
    const shownSources = new Set(drawn.map((p) => p.source));
    return {
      category,
      summary: ownValue(summary.casualties, category) as CasualtySummary,
      points: drawn,
      sources: sources.filter((s) => shownSources.has(s)),
      band: entry?.band ?? [],
    };
  });
}

/**
 * The y axis for values up to `top`: whole-number ticks on a 1-2-5 step, about four of them,
 * and an axis end that is a tick, so the top gridline is labelled.
 */
export function yAxis(top: number): { max: number; ticks: number[] } {
  const target = Math.max(top, 1) / 4;
  const power = 10 ** Math.floor(Math.log10(target));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((s) => s >= target) ?? target);
  const max = Math.max(step, Math.ceil(top / step) * step);
  const ticks: number[] = [];
  for (let t = 0; t <= max; t += step) ticks.push(t);
  return { max, ticks };
}
