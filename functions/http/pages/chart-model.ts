import { describeFigure, figureBounds } from "../../../events/figures.js";
import type { Figure } from "../../../events/schemas.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import { type CasualtySummary, type Summary, summarize } from "../../../events/summarize.js";
import { emptyState, evolve } from "../../../events/summary.js";
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

/** The summary's low–high range as it stood from `version` on, until the next step. */
export interface BandStep {
  version: number;
  low: number | null;
  high: number | null;
}

export interface CategoryChart {
  category: string;
  summary: CasualtySummary;
  points: ChartPoint[];
  /** Source names in the order they first reported this category (the legend's order). */
  sources: string[];
  band: BandStep[];
}

/**
 * One chart per category of the summary. `events` must be the incident's events up to the
 * summary's version, in order: the band is re-derived by folding them with the same `evolve`
 * and `summarize` the archive uses, so its last step is the summary's own low–high.
 */
export function casualtyCharts(events: readonly StoredEvent[], summary: Summary): CategoryChart[] {
  const retracted = new Set(summary.retractedEventIds);
  const points = new Map<string, ChartPoint[]>();
  const bands = new Map<string, BandStep[]>();
  let state = emptyState(summary.incidentId);

  for (const event of events) {
    if (event.version > summary.version) break;
    state = evolve(state, event);
    if (event.type === "CasualtiesReported") {
      for (const [category, figure] of Object.entries(event.data.figures as Record<string, Figure>)) {
        const bounds = figureBounds(figure);
        const list = points.get(category) ?? [];
        list.push({
          eventId: event.eventId,
          version: event.version,
          recordedAt: event.recordedAt,
          source: event.attributedTo?.name ?? event.source.publisher,
          publisher: event.source.publisher,
          figure,
          words: describeFigure(figure),
          at: "value" in figure ? figure.value : bounds.low,
          low: bounds.low,
          high: bounds.high,
          retracted: retracted.has(event.eventId),
        });
        points.set(category, list);
      }
    }
    // Only reports and retractions move a range; re-summarise just then.
    if (event.type === "CasualtiesReported" || event.type === "ReportRetracted") {
      for (const [category, now] of Object.entries(summarize(state).casualties)) {
        const steps = bands.get(category) ?? [];
        const last = steps[steps.length - 1];
        if (!last || last.low !== now.low || last.high !== now.high)
          steps.push({ version: event.version, low: now.low, high: now.high });
        bands.set(category, steps);
      }
    }
  }

  return orderCategories(Object.keys(summary.casualties)).map((category) => {
    const list = points.get(category) ?? [];
    return {
      category,
      summary: summary.casualties[category] as CasualtySummary,
      points: list,
      sources: [...new Set(list.map((p) => p.source))],
      band: bands.get(category) ?? [],
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
