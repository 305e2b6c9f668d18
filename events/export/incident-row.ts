import { WELL_KNOWN_CATEGORIES } from "../schemas.js";
import type { Summary } from "../summarize.js";
import { type Cell, csvRecord } from "./csv.js";

/**
 * The columns of incidents.csv, in order. Their names are a published interface (the codebook,
 * docs/reference/codebook.md, documents each one): add columns at the end, never rename or reorder.
 */
export const CATEGORY_COLUMNS = ["low", "high", "sources"] as const;

export const INCIDENT_COLUMNS: readonly string[] = [
  "incident_id",
  "version",
  "title",
  "kind",
  "location_name",
  "location_region",
  "country",
  "lat",
  "lon",
  "occurred_at",
  "occurred_on",
  "first_recorded_at",
  "last_recorded_at",
  "head_hash",
  "contested",
  "denials",
  "statements",
  "retractions",
  ...WELL_KNOWN_CATEGORIES.flatMap((category) => CATEGORY_COLUMNS.map((part) => `${category}_${part}`)),
];

export const INCIDENT_HEADER = csvRecord(INCIDENT_COLUMNS);

/**
 * One incident's row, from its summary. A category nobody reported gives low and high empty and
 * sources 0; a reported one with no upper bound ("at least 50") gives high empty and sources ≥ 1.
 */
export function incidentCells(s: Summary): Cell[] {
  const location = s.location;
  return [
    s.incidentId,
    s.version,
    s.title,
    s.kind,
    location?.name ?? null,
    location?.region ?? null,
    location?.country ?? null,
    location?.lat ?? null,
    location?.lon ?? null,
    s.occurredAt,
    s.occurredOn,
    s.firstRecordedAt,
    s.lastRecordedAt,
    s.headHash,
    s.contested,
    s.denials.length,
    s.statements.count,
    s.retractedEventIds.length,
    ...WELL_KNOWN_CATEGORIES.flatMap((category) => {
      const c = Object.hasOwn(s.casualties, category) ? s.casualties[category] : undefined;
      return [c?.low ?? null, c?.high ?? null, c?.bySource.length ?? 0];
    }),
  ];
}

export function incidentRecord(summary: Summary): string {
  return csvRecord(incidentCells(summary));
}
