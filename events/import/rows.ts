import { isCalendarDay } from "../calendar.js";
import { MAX_COUNT, wholeNumberRule } from "../schemas.js";
import type { FieldError } from "../validate.js";
import { countryCode } from "./countries.js";

/** One data row of an import file, as the readers give it to a format. */
export interface SourceRow {
  /** 1-based number of the data row (the header is not counted). */
  row: number;
  /** The file line it starts on (a quoted field may span several). */
  line: number;
  /** Column name → cell (CSV), or the parsed line (NDJSON). */
  fields: Record<string, string>;
}

/** What a row becomes: the incident and the envelopes (not yet validated) to append there. */
export type MappedRow =
  | {
      ok: true;
      incidentId: string;
      events: Record<string, unknown>[];
      /** How an error in one of its events' fields is told in the file's own terms (a mapping's columns). */
      explain?: (errors: FieldError[]) => FieldError[];
      /** What the archive cannot hold of the row as the dataset gave it, told once a run with its count of rows. */
      notes?: readonly string[];
    }
  | { ok: false; errors: FieldError[] };

export function fail(path: string, message: string): MappedRow {
  return { ok: false, errors: [{ path, message }] };
}

/** A dataset row's country, latitude and longitude: ACLED's and UCDP GED's columns of the same names. */
export function placeCells(
  cell: (name: string) => string,
  need: ReturnType<typeof cellChecks>["need"],
): { country: string; lat: number; lon: number } {
  return {
    country: need(
      countryCode(cell("country")),
      "country",
      `"${clip(cell("country"), 80)}" is not a country this importer knows`,
    ),
    lat: need(parseDegrees(cell("latitude"), 90), "latitude", "must be a number from -90 to 90"),
    lon: need(parseDegrees(cell("longitude"), 180), "longitude", "must be a number from -180 to 180"),
  };
}

/**
 * A row's cells read together: `need(value, path, message)` gives the value, noting the message
 * when it is null (unreadable), so that every bad cell of a row is named at once.
 */
export function cellChecks(): {
  errors: FieldError[];
  need: <T>(value: T | null, path: string, message: string) => T;
} {
  const errors: FieldError[] = [];
  const need = <T>(value: T | null, path: string, message: string): T => {
    if (value === null) errors.push({ path, message });
    return value as T;
  };
  return { errors, need };
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** A calendar day as ISO `YYYY-MM-DD` from `2022-04-08`, `2022-04-08 00:00:00.000`, `08 April 2022` or `8-Apr-2022`; null if not a real day. */
export function parseDay(text: string): string | null {
  const t = text.trim();
  let y: number;
  let m: number;
  let d: number;
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[ T][0-9:.]+Z?)?$/.exec(t);
  const words = /^(\d{1,2})[ -]([A-Za-z]+)[ -](\d{4})$/.exec(t);
  if (iso) {
    [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else if (words) {
    const month = (words[2] as string).toLowerCase();
    const index = MONTHS.findIndex((name) => name === month || (month.length >= 3 && name.startsWith(month)));
    if (index < 0) return null;
    [y, m, d] = [Number(words[3]), index + 1, Number(words[1])];
  } else return null;
  if (!isCalendarDay(y, m, d)) return null;
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/**
 * An instant (`2022-04-15T05:20:00Z`) from a cell of Unix time in whole seconds, `""` for an
 * empty cell; null if unreadable.
 */
export function parseUnixTime(text: string): string | "" | null {
  const t = text.trim();
  if (t === "") return "";
  if (!/^\d{1,11}$/.test(t)) return null;
  const instant = new Date(Number(t) * 1000);
  return Number.isNaN(instant.getTime()) ? null : instant.toISOString().replace(".000Z", "Z");
}

/** A finite number from a cell (`.` decimal point); null for an empty or non-numeric cell. */
export function parseNumber(text: string | undefined): number | null {
  const t = (text ?? "").trim();
  if (t === "" || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** A latitude (`max` 90) or longitude (`max` 180) in decimal degrees from a cell; null otherwise. */
export function parseDegrees(text: string | undefined, max: 90 | 180): number | null {
  const n = parseNumber(text);
  return n !== null && n >= -max && n <= max ? n : null;
}

/** A count from a cell, 0 to the most a figure holds (MAX_COUNT); null otherwise. */
export function parseCount(text: string | undefined): number | null {
  const n = parseNumber(text);
  return n !== null && Number.isInteger(n) && n >= 0 && n <= MAX_COUNT ? n : null;
}

/** What a count cell must be, said the same for every dataset. */
export const COUNT_RULE = wholeNumberRule(0, MAX_COUNT);

/** Text cut to a schema's limit, with an ellipsis when cut; undefined for an empty cell. */
export function clip(text: string | undefined, max: number): string | undefined {
  const t = (text ?? "").trim();
  if (t === "") return undefined;
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/**
 * `clip` for a dataset's cells, keeping what it cut: each cut is a note of the row (the importer
 * counts them by note and says each once a run), never a silent change of what the source said.
 */
export function clipping(): {
  cut: (text: string | undefined, max: number, field: string) => string | undefined;
  notes: string[];
} {
  const notes: string[] = [];
  return {
    notes,
    cut(text, max, field) {
      if ((text ?? "").trim().length > max)
        notes.push(
          `${field} cut to ${max.toLocaleString("en")} characters, the most the archive takes there (ending "…")`,
        );
      return clip(text, max);
    },
  };
}

/** Every column a format needs that the header lacks. */
export function missingColumns(header: readonly string[], required: readonly string[]): string[] {
  const have = new Set(header.map((h) => h.trim().toLowerCase()));
  return required.filter((c) => !have.has(c.toLowerCase()));
}
