import type { AttributionRow } from "../editorial.js";
import { sourceKey } from "../source-key.js";
import type { Summary } from "../summarize.js";

/**
 * What UCDP GED and ACLED layouts share: the codes our precision lists map to (and, for import,
 * back), the incident's dates, its sources and its perpetrator. The rules are in
 * docs/reference/codebook.md ("ucdp-ged.csv", "acled.csv"); each function names the section it follows.
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

/**
 * The codes read back, for import: each code's value, or where several of ours share a code
 * (ACLED's are coarser), the one `shared` names, as "acled.csv" in the codebook says. So an
 * imported code exports as the same code.
 */
function readBack(
  table: Readonly<Record<string, number>>,
  shared: Readonly<Record<number, string>> = {},
): Readonly<Record<string, string>> {
  const back: Record<string, string> = {};
  for (const [value, n] of Object.entries(table)) {
    const named = Object.hasOwn(shared, n) ? shared[n] : undefined;
    if (named !== undefined && table[named] !== n) throw new Error(`${named} does not code as ${n}`);
    if (named === undefined && Object.hasOwn(back, String(n)))
      throw new Error(`name the value ${n} reads as`);
    back[String(n)] = named ?? value;
  }
  return back;
}
/** `date_prec` 1–5 and `where_prec` 1–7: one of ours each. */
export const UCDP_DATE_PREC_READ = readBack(UCDP_DATE_PREC);
export const UCDP_WHERE_PREC_READ = readBack(UCDP_WHERE_PREC);
/** `time_precision` 2 is ACLED's week (our `days` also writes 2). */
export const ACLED_TIME_PRECISION_READ = readBack(ACLED_TIME_PRECISION, { 2: "week" });
/** `geo_precision` 3, "a larger region", placed at its capital by ACLED: a first-level region (our `adm2` and `subnational` also write 3). */
export const ACLED_GEO_PRECISION_READ = readBack(ACLED_GEO_PRECISION, { 3: "adm1" });

/**
 * Our value for a dataset's code cell: undefined when the cell is empty (not coded), null when
 * it holds no code of the table.
 */
export function valueOfCode(read: Readonly<Record<string, string>>, cell: string): string | null | undefined {
  const text = cell.trim();
  if (text === "") return undefined;
  // A whole number as a spreadsheet may write it ("2.0"), as the count columns are read.
  const key = /^\d+(?:\.0+)?$/.test(text) ? String(Number(text)) : text;
  return Object.hasOwn(read, key) ? (read[key] ?? null) : null;
}

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
 * "Precision and revision": the code of `timePrecision` in `table`, empty when the incident has
 * no start (`date_start`, `event_date` empty): a precision qualifies a date, and none is given.
 */
export const dateCode = (table: Readonly<Record<string, number>>, s: Summary): number | null =>
  days(s).start === null ? null : code(table, s.timePrecision);

/**
 * The publishers of the casualty figures that count, distinct as sources are (NFC, white space
 * trimmed and collapsed: " Reuters " is Reuters), so written, sorted. A category counts when it
 * has a best estimate (an eligible source, "Best estimates"), and then every live source of it
 * does, as its range combines them all; one whose every live report was assessed `false` gives
 * no figure to a research row, so no source ("ucdp-ged.csv", `number_of_sources`).
 */
export function publishers(s: Summary): string[] {
  const names = new Set<string>();
  for (const category of Object.values(s.casualties))
    if (category.best !== null)
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
