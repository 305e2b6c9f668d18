import { describeFigure, figureBounds } from "../../../events/figures.js";
import { ownValue } from "../../../events/own-keys.js";
import type { Figure } from "../../../events/schemas.js";
import type { CasualtySummary, Summary } from "../../../events/summarize.js";
import {
  BAND_STEPS_KEPT,
  type BandStep,
  type IncidentState,
  type SourceReports,
} from "../../../events/summary.js";
import { orderCategories, sourceName } from "./format.js";
import { PAGE_BAND_STEPS, PAGE_CHART_POINTS, share } from "./page-budget.js";

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

/** Names on a chart (legend, labels, table) are cut to this many characters: the JSON has them whole. */
export const CHART_NAME_MAX = 80;

function clipName(name: string): string {
  if (name.length <= CHART_NAME_MAX) return name;
  const points = Array.from(name);
  return points.length <= CHART_NAME_MAX ? name : `${points.slice(0, CHART_NAME_MAX - 1).join("")}…`;
}

/** Points drawn per chart at most, whatever the number of sources (page weight). */
export const MAX_CHART_POINTS = 48;

/**
 * At most MAX_CHART_POINTS of a chart's points, in version order: first each source's latest
 * (the most recent sources first), then the reports that moved the range, newest first.
 */
function pickPoints(points: ChartPoint[], max: number): ChartPoint[] {
  const newestFirst = [...points].sort((a, b) => b.version - a.version);
  const latest = new Map<string, ChartPoint>();
  for (const p of newestFirst) if (!latest.has(p.source)) latest.set(p.source, p);
  const picked = new Set([...latest.values()].slice(0, max));
  for (const p of newestFirst) {
    if (picked.size >= max) break;
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
export function casualtyCharts(
  state: IncidentState,
  summary: Summary,
  retracted: ReadonlySet<string> = new Set(summary.retractedEventIds),
): CategoryChart[] {
  const categories = orderCategories(Object.keys(summary.casualties));
  // The page's budget, shared by its charts: a few categories get up to MAX_CHART_POINTS each.
  const maxPoints = share(PAGE_CHART_POINTS, categories.length, MAX_CHART_POINTS, 2);
  const maxSteps = share(PAGE_BAND_STEPS, categories.length, BAND_STEPS_KEPT, 2);
  return categories.map((category) => {
    const entry = ownValue(state.casualties, category);
    // Sources are keyed by sourceKey (events/source-key.ts); shown by the name their latest report gave.
    // A private person is shown by their pseudonym: their name is sealed.
    const nameOf = (key: string, kept: SourceReports) => {
      const top = kept.recent[kept.recent.length - 1];
      return top ? sourceName(top.attributedTo) : key;
    };
    const names = Object.entries(entry?.sources ?? {}).map(([key, kept]) => nameOf(key, kept));
    const points: ChartPoint[] = [];
    for (const [key, kept] of Object.entries(entry?.sources ?? {})) {
      const source = nameOf(key, kept);
      for (const mark of kept.marks) {
        const bounds = figureBounds(mark.figure);
        points.push({
          eventId: mark.eventId,
          version: mark.version,
          recordedAt: mark.recordedAt,
          source,
          publisher: mark.publisher,
          figure: mark.figure,
          words: "",
          at: "value" in mark.figure ? mark.figure.value : bounds.low,
          low: bounds.low,
          high: bounds.high,
          retracted: retracted.has(mark.eventId),
        });
      }
    }
    // Only the points drawn are worded, and their names cut to CHART_NAME_MAX.
    const picked = pickPoints(points, maxPoints);
    const shownNames = new Set(picked.map((p) => p.source));
    const drawn = picked.map((p) => ({
      ...p,
      source: clipName(p.source),
      publisher: clipName(p.publisher),
      words: describeFigure(p.figure),
    }));
    const band = entry?.band ?? [];
    return {
      category,
      summary: ownValue(summary.casualties, category) as CasualtySummary,
      points: drawn,
      sources: names.filter((s) => shownNames.has(s)).map(clipName),
      band: band.slice(Math.max(0, band.length - maxSteps)),
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
