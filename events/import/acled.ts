import {
  ACLED_GEO_PRECISION_READ,
  ACLED_TIME_PRECISION_READ,
  valueOfCode,
} from "../export/research-codes.js";
import { datasetEventId, slugify } from "./event-ids.js";
import {
  COUNT_RULE,
  cellChecks,
  clipping,
  type MappedRow,
  parseCount,
  parseDay,
  parseUnixTime,
  placeCells,
  type SourceRow,
} from "./rows.js";

/**
 * ACLED's CSV export (the columns of its codebook, 2023 layout and later): one row is one
 * event, which becomes one incident — an `IncidentOpened` and, when ACLED reports fatalities,
 * a `CasualtiesReported` attributed to ACLED. What does not map is listed in
 * docs/explanation/finding.md ("Import").
 */
export const ACLED_REQUIRED = [
  "event_id_cnty",
  "event_date",
  "event_type",
  "sub_event_type",
  "actor1",
  "country",
  "location",
  "latitude",
  "longitude",
  "source",
  "fatalities",
] as const;

export const ACLED_COLUMNS = [
  "event_id_cnty",
  "event_date",
  "year",
  "time_precision",
  "disorder_type",
  "event_type",
  "sub_event_type",
  "actor1",
  "assoc_actor_1",
  "inter1",
  "actor2",
  "assoc_actor_2",
  "inter2",
  "interaction",
  "civilian_targeting",
  "iso",
  "region",
  "country",
  "admin1",
  "admin2",
  "admin3",
  "location",
  "latitude",
  "longitude",
  "geo_precision",
  "source",
  "source_scale",
  "notes",
  "fatalities",
  "tags",
  "timestamp",
] as const;

export function acledRow(row: SourceRow): MappedRow {
  const f = row.fields;
  const cell = (name: string) => (f[name] ?? "").trim();
  const { errors, need } = cellChecks();
  const incidentId = need(
    // An id with nothing to slug ("", "---") is none: never the bare prefix every such row would share.
    slugify(cell("event_id_cnty")) ? slugify(cell("event_id_cnty"), "acled-") : null,
    "event_id_cnty",
    "is required (ACLED's event id, e.g. UKR12345)",
  );
  const day = need(
    parseDay(cell("event_date")),
    "event_date",
    "must be a real day (2022-04-08 or 08 April 2022)",
  );
  const { country, lat, lon } = placeCells(cell, need);
  const fatalities = need(parseCount(cell("fatalities")), "fatalities", COUNT_RULE);
  const timePrecision = need(
    valueOfCode(ACLED_TIME_PRECISION_READ, cell("time_precision")),
    "time_precision",
    "must be 1 (the day), 2 (the week) or 3 (the month), or empty",
  );
  const precision = need(
    valueOfCode(ACLED_GEO_PRECISION_READ, cell("geo_precision")),
    "geo_precision",
    "must be 1 (the place), 2 (near it) or 3 (a larger region), or empty",
  );
  const editedAt = need(
    parseUnixTime(cell("timestamp")),
    "timestamp",
    "must be ACLED's Unix time in seconds (1650000000), or empty",
  );
  if (errors.length > 0) return { ok: false, errors };
  const kind = slugify(cell("sub_event_type") || cell("event_type")) ?? "acled-event";
  const place = cell("location") || cell("admin2") || cell("admin1") || cell("country");
  const { cut, notes } = clipping();
  const source = {
    publisher: "ACLED",
    title: cut(
      `ACLED ${cell("event_id_cnty")}; sources: ${cell("source") || "none given"}`,
      500,
      "the source's title (event_id_cnty and source)",
    ),
  };
  const opening = {
    type: "IncidentOpened",
    source,
    data: {
      title: cut(
        `${cell("sub_event_type") || cell("event_type")}: ${place}`,
        500,
        "the incident's title (sub_event_type and location)",
      ),
      kind: kind.slice(0, 64).replace(/-+$/, ""),
      location: {
        name: cut(place, 300, "the place (location)"),
        ...(cell("admin1") ? { region: cut(cell("admin1"), 300, "the region (admin1)") } : {}),
        country,
        lat,
        lon,
        ...(precision ? { precision } : {}),
      },
      occurredOn: day,
      ...(timePrecision ? { timePrecision } : {}),
      ...(cell("notes") ? { description: cut(cell("notes"), 20_000, "the description (notes)") } : {}),
    },
  };
  // Each event's id is of its own content (datasetEventId). The opening's leaves out the row's
  // timestamp, so a row ACLED edited opens its incident once; the figure names it, so each edit
  // ACLED made is ACLED's report again, and a count revised back (57, 61, 57) is the latest.
  const events: Record<string, unknown>[] = [opening];
  // Zero fatalities says no death was reported; "at least 0" would say nothing, so none is recorded.
  if (fatalities > 0) {
    events.push({
      type: "CasualtiesReported",
      source: editedAt ? { ...source, publishedAt: editedAt } : source,
      attributedTo: { name: "ACLED", role: "conflict event dataset" },
      data: {
        figures: {
          killed: {
            value: fatalities,
            qualifier: "at-least",
            text: "ACLED fatalities (its most conservative estimate)",
          },
        },
      },
    });
  }
  return {
    ok: true,
    incidentId,
    events: events.map((event) => ({ eventId: datasetEventId("acled", incidentId, event), ...event })),
    ...(notes.length > 0 ? { notes } : {}),
  };
}
