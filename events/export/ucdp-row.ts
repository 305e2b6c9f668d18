import { effectiveGrade, type Summary } from "../summarize.js";
import { type Cell, csvRecord, decimal } from "./csv.js";
import {
  code,
  dateCode,
  days,
  killedOf,
  perpetrator,
  publishers,
  UCDP_DATE_PREC,
  UCDP_WHERE_PREC,
} from "./research-codes.js";

/**
 * The columns of ucdp-ged.csv: UCDP GED's names, in GED's order, for every field that maps
 * (docs/reference/codebook.md, "ucdp-ged.csv"), then the ledger's own columns. Add at the end only.
 */
export const UCDP_COLUMNS: readonly string[] = [
  "id",
  "year",
  "side_a",
  "number_of_sources",
  "source_article",
  "source_headline",
  "where_prec",
  "where_coordinates",
  "where_description",
  "adm_1",
  "latitude",
  "longitude",
  "geom_wkt",
  "country",
  "date_prec",
  "date_start",
  "date_end",
  "deaths_unknown",
  "best",
  "high",
  "low",
  "ledger_version",
  "ledger_head_hash",
  "ledger_contested",
  "ledger_grade",
];

export const UCDP_HEADER = csvRecord(UCDP_COLUMNS);

export function ucdpCells(s: Summary): Cell[] {
  const location = s.location;
  const { start, end } = days(s);
  // GED's three figures stand or fall together: with no eligible source ("Best estimates") there
  // is no best, so no low and no high either (a range of reports that do not count is not GED's).
  const reported = killedOf(s);
  const killed = reported?.best === null ? undefined : reported;
  const lat = location?.lat ?? null;
  const lon = location?.lon ?? null;
  const sources = publishers(s);
  return [
    s.incidentId,
    start ? Number(start.slice(0, 4)) : null,
    perpetrator(s)?.name ?? null,
    sources.length,
    sources.length > 0 ? sources.join("; ") : null,
    s.title,
    code(UCDP_WHERE_PREC, location?.precision),
    location?.name ?? null,
    location ? [location.name, location.region].filter(Boolean).join(", ") : null,
    location?.region ?? null,
    lat,
    lon,
    lat !== null && lon !== null ? `POINT (${decimal(lon)} ${decimal(lat)})` : null,
    location?.country ?? null,
    dateCode(UCDP_DATE_PREC, s),
    start,
    end,
    killed?.best ?? null,
    killed?.best ?? null,
    killed?.high ?? null,
    // Not the archive's range `low` (the largest lower bound, which can pass best): GED's low is
    // never above best, so "Combining sources (lowest)".
    killed?.lowest ?? null,
    s.version,
    s.headHash,
    s.contested,
    effectiveGrade(s) ?? null,
  ];
}

export const ucdpRecord = (s: Summary): string => csvRecord(ucdpCells(s));

/**
 * Whether a summary holds what the row reads: `killed`'s `lowest`, which a view stored before
 * it existed lacks (such a row is folded afresh instead of written with `low` empty).
 */
export const ucdpReads = (s: Summary): boolean => {
  const killed = killedOf(s);
  return killed === undefined || killed.lowest !== undefined;
};
