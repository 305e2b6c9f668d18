import { effectiveGrade, type Summary } from "../summarize.js";
import { type Cell, csvRecord } from "./csv.js";
import {
  ACLED_GEO_PRECISION,
  ACLED_TIME_PRECISION,
  code,
  dateCode,
  days,
  killedOf,
  perpetrator,
  publishers,
} from "./research-codes.js";

/**
 * The columns of acled.csv: ACLED's names, in ACLED's order, for every field that maps
 * (docs/reference/codebook.md, "acled.csv"), then the ledger's own columns. Add at the end only.
 */
export const ACLED_COLUMNS: readonly string[] = [
  "event_id_cnty",
  "event_date",
  "year",
  "time_precision",
  "actor1",
  "country",
  "admin1",
  "location",
  "latitude",
  "longitude",
  "geo_precision",
  "source",
  "notes",
  "fatalities",
  "timestamp",
  "ledger_version",
  "ledger_head_hash",
  "ledger_contested",
  "ledger_grade",
];

export const ACLED_HEADER = csvRecord(ACLED_COLUMNS);

export function acledCells(s: Summary): Cell[] {
  const location = s.location;
  const { start } = days(s);
  const sources = publishers(s);
  return [
    s.incidentId,
    start,
    start ? Number(start.slice(0, 4)) : null,
    dateCode(ACLED_TIME_PRECISION, s),
    perpetrator(s)?.name ?? null,
    location?.country ?? null,
    location?.region ?? null,
    location?.name ?? null,
    location?.lat ?? null,
    location?.lon ?? null,
    code(ACLED_GEO_PRECISION, location?.precision),
    sources.length > 0 ? sources.join("; ") : null,
    s.title,
    killedOf(s)?.acled ?? null,
    s.lastRecordedAt ? Math.floor(Date.parse(s.lastRecordedAt) / 1000) : null,
    s.version,
    s.headHash,
    s.contested,
    effectiveGrade(s) ?? null,
  ];
}

export const acledRecord = (s: Summary): string => csvRecord(acledCells(s));
