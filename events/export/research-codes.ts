import type { AttributionRow } from "../editorial.js";
import { sourceKey } from "../source-key.js";
import type { Summary } from "../summarize.js";

/**
 * What UCDP GED and ACLED layouts share: the codes our precision lists map to, the incident's
 * dates, its sources and its perpetrator. The rules are in docs/reference/codebook.md ("ucdp-ged.csv",
 * "acled.csv"); each function names the section it follows.
 */

/** "ucdp-ged.csv", `date_prec`: 1 day, 2 a few days, 3 the week, 4 the month, 5 the year. */
export const UCDP_DATE_PREC: Readonly<Record<string, number>> = {
  day: 1,
  days: 2,
  week: 3,
  month: 4,
  year: 5,
};
/** "ucdp-ged.csv", `where_prec`: 1 exact … 7 at sea or in the air. */
export const UCDP_WHERE_PREC: Readonly<Record<string, number>> = {
  exact: 1,
  near: 2,
  adm2: 3,
  adm1: 4,
  subnational: 5,
  country: 6,
  water: 7,
};
/** "acled.csv", `time_precision`: 1 the day, 2 the week, 3 the month; a year does not map. */
export const ACLED_TIME_PRECISION: Readonly<Record<string, number>> = { day: 1, days: 2, week: 2, month: 3 };
/** "acled.csv", `geo_precision`: 1 the place, 2 near it, 3 a larger region; country or sea does not map. */
export const ACLED_GEO_PRECISION: Readonly<Record<string, number>> = {
  exact: 1,
  near: 2,
  adm2: 3,
  adm1: 3,
  subnational: 3,
};

export const code = (
  table: Readonly<Record<string, number>>,
  key: string | null | undefined,
): number | null =>
  key !== null && key !== undefined && Object.hasOwn(table, key) ? (table[key] ?? null) : null;

/** The date an instant or date falls on, as the report wrote it (its own offset): `YYYY-MM-DD`. */
export const dayOf = (when: string | null | undefined): string | null => (when ? when.slice(0, 10) : null);

/** Where the incident starts and ends, as days (the end is the start when no end is given). */
export function days(s: Summary): { start: string | null; end: string | null } {
  const start = dayOf(s.occurredAt ?? s.occurredOn);
  return { start, end: dayOf(s.occurredUntil) ?? start };
}

/**
 * The publishers of the casualty figures the summary shows, distinct as sources are (NFC, white
 * space trimmed and collapsed: " Reuters " is Reuters), so written, sorted.
 */
export function publishers(s: Summary): string[] {
  const names = new Set<string>();
  for (const category of Object.values(s.casualties))
    for (const row of category.bySource) names.add(sourceKey({ name: row.publisher }));
  return [...names].sort();
}

const CERTAINTY = { low: 1, medium: 2, high: 3 } as const;

/**
 * "Perpetrator": the perpetrator assessed with the highest certainty (the most recent among
 * equals), or null when none was assessed or two perpetrators share the highest certainty
 * (a contested attribution does not map to one actor).
 */
export function perpetrator(s: Summary): AttributionRow["perpetrator"] | null {
  let best: AttributionRow | null = null;
  let tied = false;
  for (const a of s.attributions.latest) {
    if (!best || CERTAINTY[a.certainty] > CERTAINTY[best.certainty]) {
      best = a;
      tied = false;
    } else if (CERTAINTY[a.certainty] === CERTAINTY[best.certainty]) tied = true;
  }
  return best && !tied ? best.perpetrator : null;
}

/** The well-known category the fatality columns read. */
export const killedOf = (s: Summary) =>
  Object.hasOwn(s.casualties, "killed") ? s.casualties.killed : undefined;
