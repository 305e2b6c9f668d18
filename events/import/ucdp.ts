import { UCDP_DATE_PREC_READ, UCDP_WHERE_PREC_READ, valueOfCode } from "../export/research-codes.js";
import { datasetEventId, slugify } from "./event-ids.js";
import {
  COUNT_RULE,
  cellChecks,
  clipping,
  type MappedRow,
  parseCount,
  parseDay,
  placeCells,
  type SourceRow,
} from "./rows.js";

/**
 * UCDP GED's CSV (the columns of its codebook): one row is one event of organised violence,
 * which becomes one incident — an `IncidentOpened` and a `CasualtiesReported` attributed to
 * UCDP with its low–high range (best in the figure's text). What does not map is listed in
 * docs/explanation/finding.md ("Import").
 */
export const UCDP_REQUIRED = [
  "id",
  "type_of_violence",
  "dyad_name",
  "country",
  "latitude",
  "longitude",
  "date_start",
  "date_end",
  "best",
  "low",
  "high",
] as const;

export const UCDP_COLUMNS = [
  "id",
  "relid",
  "year",
  "active_year",
  "code_status",
  "type_of_violence",
  "conflict_dset_id",
  "conflict_new_id",
  "conflict_name",
  "dyad_dset_id",
  "dyad_new_id",
  "dyad_name",
  "side_a_dset_id",
  "side_a_new_id",
  "side_a",
  "side_b_dset_id",
  "side_b_new_id",
  "side_b",
  "number_of_sources",
  "source_article",
  "source_office",
  "source_date",
  "source_headline",
  "source_original",
  "where_prec",
  "where_coordinates",
  "where_description",
  "adm_1",
  "adm_2",
  "latitude",
  "longitude",
  "geom_wkt",
  "priogrid_gid",
  "country",
  "country_id",
  "region",
  "event_clarity",
  "date_prec",
  "date_start",
  "date_end",
  "deaths_a",
  "deaths_b",
  "deaths_civilians",
  "deaths_unknown",
  "best",
  "high",
  "low",
  "gwnoa",
  "gwnob",
] as const;

const VIOLENCE: Record<string, string> = {
  "1": "state-based-violence",
  "2": "non-state-violence",
  "3": "one-sided-violence",
};

export function ucdpRow(row: SourceRow): MappedRow {
  const f = row.fields;
  const cell = (name: string) => (f[name] ?? "").trim();
  const { errors, need } = cellChecks();
  const incidentId = need(
    /^\d+$/.test(cell("id")) ? slugify(cell("id"), "ucdp-ged-") : null,
    "id",
    "is required (UCDP GED's numeric event id)",
  );
  const kind = need(
    Object.hasOwn(VIOLENCE, cell("type_of_violence")) ? (VIOLENCE[cell("type_of_violence")] as string) : null,
    "type_of_violence",
    "must be 1, 2 or 3",
  );
  const start = need(parseDay(cell("date_start")), "date_start", "must be a real day (2022-04-08)");
  const endDay = parseDay(cell("date_end"));
  const end = need(
    endDay !== null && (start === null || endDay >= start) ? endDay : null,
    "date_end",
    "must be a real day, not before date_start",
  );
  const { country, lat, lon } = placeCells(cell, need);
  const best = need(parseCount(cell("best")), "best", COUNT_RULE);
  const lowCount = parseCount(cell("low"));
  const highCount = parseCount(cell("high"));
  const low = need(
    lowCount !== null && (best === null || lowCount <= best) ? lowCount : null,
    "low",
    `${COUNT_RULE}, at most best`,
  );
  const high = need(
    highCount !== null && (best === null || highCount >= best) ? highCount : null,
    "high",
    `${COUNT_RULE}, at least best`,
  );
  const timePrecision = need(
    valueOfCode(UCDP_DATE_PREC_READ, cell("date_prec")),
    "date_prec",
    "must be a code from 1 (the day) to 5 (the year), or empty",
  );
  const precision = need(
    valueOfCode(UCDP_WHERE_PREC_READ, cell("where_prec")),
    "where_prec",
    "must be a code from 1 (the exact place) to 7 (at sea or in the air), or empty",
  );
  if (errors.length > 0) return { ok: false, errors };
  const place = cell("where_coordinates") || cell("adm_2") || cell("adm_1") || cell("country");
  const { cut, notes } = clipping();
  if (best > low) notes.push(BEST_ABOVE_LOW);
  const source = {
    publisher: "UCDP GED",
    title: cut(
      `UCDP GED event ${cell("id")}; sources: ${cell("source_article") || "none given"}`,
      500,
      "the source's title (id and source_article)",
    ),
  };
  const dates = start === end ? start : `${start} to ${end}`;
  const description = [cell("where_description"), `Dates: ${dates}.`, cell("source_headline")]
    .filter((s) => s !== "")
    .join(" ");
  // The archive's Figure has no "best within a range": the range is kept, whose best is its low.
  const figure =
    low === high
      ? { value: best, qualifier: "exact", text: `UCDP best estimate ${best}` }
      : { min: low, max: high, text: `UCDP best estimate ${best} (low ${low}, high ${high})` };
  const civilians = parseCount(cell("deaths_civilians"));
  const opening = {
    type: "IncidentOpened",
    source,
    data: {
      title: cut(
        `${cell("dyad_name") || cell("conflict_name")}: ${place}`,
        500,
        "the incident's title (dyad_name and where_coordinates)",
      ),
      kind,
      location: {
        name: cut(place, 300, "the place (where_coordinates)"),
        ...(cell("adm_1") ? { region: cut(cell("adm_1"), 300, "the region (adm_1)") } : {}),
        country,
        lat,
        lon,
        ...(precision ? { precision } : {}),
      },
      occurredOn: start,
      ...(end !== start ? { occurredUntil: end } : {}),
      ...(timePrecision ? { timePrecision } : {}),
      description: cut(description, 20_000, "the description (where_description and source_headline)"),
    },
  };
  const reported = {
    type: "CasualtiesReported",
    source,
    attributedTo: { name: "UCDP", role: "Uppsala Conflict Data Program" },
    data: {
      figures: {
        killed: figure,
        ...(civilians !== null && civilians > 0
          ? {
              civiliansKilled: {
                value: civilians,
                qualifier: "exact",
                text: "UCDP deaths_civilians (best)",
              },
            }
          : {}),
      },
    },
  };
  // Each event's id is of its own content (datasetEventId), as ACLED's: a revised row stores only what changed.
  return {
    ok: true,
    incidentId,
    events: [opening, reported].map((event) => ({
      eventId: datasetEventId("ucdp", incidentId, event),
      ...event,
    })),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

/** Said once a run, with the count of such rows (the codebook, "ucdp-ged.csv", says the same). */
export const BEST_ABOVE_LOW =
  "GED's best is above its low: the archive keeps the low–high range, so the summary's best and ucdp-ged.csv's best are the low; GED's own best stays in the figure's words";
