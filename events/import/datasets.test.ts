import { describe, expect, it } from "vitest";
import { ACLED_COLUMNS as ACLED_EXPORT, acledCells } from "../export/acled-row.js";
import { UCDP_COLUMNS as UCDP_EXPORT, ucdpCells } from "../export/ucdp-row.js";
import type { Envelope } from "../schemas.js";
import { given } from "../test-kit.js";
import { parseEnvelope } from "../validate.js";
import { ACLED_COLUMNS, acledRow } from "./acled.js";
import type { MappedRow } from "./rows.js";
import { UCDP_COLUMNS, ucdpRow } from "./ucdp.js";

/**
 * The datasets' precision columns, imported and exported again (docs/explanation/finding.md,
 * "Import"; docs/reference/codebook.md, "acled.csv" and "ucdp-ged.csv"): every code comes back
 * as itself, and where several of our values share a code the one read is the codebook's.
 */

const ACLED_ROW: Record<string, string> = {
  event_id_cnty: "UKR90001",
  event_date: "2022-04-08",
  event_type: "Explosions/Remote violence",
  sub_event_type: "Shelling/artillery/missile attack",
  actor1: "Military Forces of Russia (2000-)",
  country: "Ukraine",
  admin1: "Donetsk",
  location: "Kramatorsk",
  latitude: "48.7305",
  longitude: "37.5867",
  source: "Ukrainska Pravda",
  fatalities: "57",
  time_precision: "1",
  geo_precision: "1",
};

const UCDP_ROW: Record<string, string> = {
  id: "500002",
  type_of_violence: "1",
  dyad_name: "Government of Russia (Soviet Union) - Government of Ukraine",
  where_coordinates: "Mariupol town",
  adm_1: "Donetsk oblast",
  country: "Ukraine",
  latitude: "47.0951",
  longitude: "37.5494",
  date_start: "2022-04-11",
  date_end: "2022-04-13",
  best: "16",
  low: "12",
  high: "30",
  where_prec: "1",
  date_prec: "1",
};

const row = (header: readonly string[], cells: Record<string, string>) => ({
  row: 1,
  line: 2,
  fields: Object.fromEntries(header.map((h) => [h, cells[h] ?? ""])),
});

/** The row's opening as the API would take it. */
function opening(mapped: MappedRow): Envelope & { type: "IncidentOpened" } {
  if (!mapped.ok) throw new Error(JSON.stringify(mapped.errors));
  const parsed = parseEnvelope(mapped.events[0]);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value as Envelope & { type: "IncidentOpened" };
}

/** The export's cells for an incident opened so, by column name. */
function exported(
  envelope: Envelope,
  cells: typeof acledCells,
  columns: readonly string[],
): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  given(envelope)
    .when()
    .then((summary) => {
      const values = cells(summary);
      out = Object.fromEntries(columns.map((c, i) => [c, values[i]]));
    });
  return out;
}

describe("ACLED's time_precision and geo_precision", () => {
  it.each([
    ["1", "day", "1", "exact"],
    ["2", "week", "2", "near"],
    ["3", "month", "3", "adm1"],
  ])(
    "given time_precision %s, then %s; given geo_precision %s, then %s; exported again, the same codes",
    (time, timePrecision, geo, precision) => {
      const opened = opening(
        acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, time_precision: time, geo_precision: geo })),
      );
      expect(opened.data).toMatchObject({ timePrecision, location: { precision } });
      expect(exported(opened, acledCells, ACLED_EXPORT)).toMatchObject({
        time_precision: Number(time),
        geo_precision: Number(geo),
      });
    },
  );

  it("given empty precision cells, then no precision is claimed; given a code ACLED has not, then the row fails naming the column", () => {
    const blank = opening(
      acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, time_precision: "", geo_precision: "" })),
    );
    expect(blank.data.timePrecision).toBeUndefined();
    expect(blank.data.location.precision).toBeUndefined();
    expect(acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, time_precision: "4" }))).toMatchObject({
      ok: false,
      errors: [{ path: "time_precision" }],
    });
    expect(acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, geo_precision: "near" }))).toMatchObject({
      ok: false,
      errors: [{ path: "geo_precision" }],
    });
  });
});

describe("ACLED's event id", () => {
  it.each(["", "  ", "---"])(
    "given %j, then the row fails naming event_id_cnty, never an incident they would all share",
    (id) => {
      expect(acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, event_id_cnty: id }))).toEqual({
        ok: false,
        errors: [{ path: "event_id_cnty", message: "is required (ACLED's event id, e.g. UKR12345)" }],
      });
    },
  );
});

describe("a cell longer than the archive takes", () => {
  it("given ACLED notes of 30,000 characters, then the description is cut, and the row says so in a note", () => {
    const mapped = acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, notes: "n".repeat(30_000) }));
    if (!mapped.ok) throw new Error(JSON.stringify(mapped.errors));
    expect(mapped.events[0]?.data).toMatchObject({ description: expect.stringMatching(/^n{19999}…$/) });
    expect(mapped.notes).toEqual([
      'the description (notes) cut to 20,000 characters, the most the archive takes there (ending "…")',
    ]);
    expect(acledRow(row(ACLED_COLUMNS, ACLED_ROW))).not.toHaveProperty("notes");
  });
});

describe("a row with several bad cells", () => {
  it("given ACLED's latitude 91 and fatalities -1, then both are named at once", () => {
    const bad = acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, latitude: "91", fatalities: "-1" }));
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(["latitude", "fatalities"]);
    // A count past what a figure holds is the column's, said once, not the event's field.
    expect(acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, fatalities: "99999999999999999999" }))).toEqual({
      ok: false,
      errors: [{ path: "fatalities", message: "must be a whole number from 0 to 100,000,000" }],
    });
  });

  it("given GED's unknown violence type, a day that is not one and low above best, then all three", () => {
    const bad = ucdpRow(
      row(UCDP_COLUMNS, { ...UCDP_ROW, type_of_violence: "9", date_start: "2022-02-30", low: "999" }),
    );
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(["type_of_violence", "date_start", "low"]);
  });
});

describe("UCDP GED's date_prec, where_prec and date_end", () => {
  it.each([
    ["1", "day", "1", "exact"],
    ["2", "days", "2", "near"],
    ["3", "week", "3", "adm2"],
    ["4", "month", "4", "adm1"],
    ["5", "year", "5", "subnational"],
    ["5", "year", "6", "country"],
    ["5", "year", "7", "water"],
  ])(
    "given date_prec %s, then %s; given where_prec %s, then %s; exported again, the same codes",
    (date, timePrecision, where, precision) => {
      const opened = opening(ucdpRow(row(UCDP_COLUMNS, { ...UCDP_ROW, date_prec: date, where_prec: where })));
      expect(opened.data).toMatchObject({ timePrecision, location: { precision } });
      expect(exported(opened, ucdpCells, UCDP_EXPORT)).toMatchObject({
        date_prec: Number(date),
        where_prec: Number(where),
      });
    },
  );

  it("given an event over several days, then it ends on date_end, and exports the same dates", () => {
    const opened = opening(ucdpRow(row(UCDP_COLUMNS, UCDP_ROW)));
    expect(opened.data).toMatchObject({ occurredOn: "2022-04-11", occurredUntil: "2022-04-13" });
    expect(exported(opened, ucdpCells, UCDP_EXPORT)).toMatchObject({
      date_start: "2022-04-11",
      date_end: "2022-04-13",
    });
    const oneDay = opening(ucdpRow(row(UCDP_COLUMNS, { ...UCDP_ROW, date_end: "2022-04-11" })));
    expect(oneDay.data.occurredUntil).toBeUndefined();
  });

  it("given a code GED has not, then the row fails naming the column", () => {
    expect(ucdpRow(row(UCDP_COLUMNS, { ...UCDP_ROW, where_prec: "8" }))).toMatchObject({
      ok: false,
      errors: [{ path: "where_prec" }],
    });
    expect(ucdpRow(row(UCDP_COLUMNS, { ...UCDP_ROW, date_prec: "0" }))).toMatchObject({
      ok: false,
      errors: [{ path: "date_prec" }],
    });
  });
});

describe("ACLED's timestamp: when ACLED last edited the row", () => {
  const ids = (mapped: MappedRow) => (mapped.ok ? mapped.events.map((e) => e.eventId) : []);
  const edited = (cells: Record<string, string>) => acledRow(row(ACLED_COLUMNS, { ...ACLED_ROW, ...cells }));

  it("given a timestamp, then the figure is ACLED's report as of that edit, and the opening does not name it", () => {
    const mapped = edited({ timestamp: "1650000000" });
    expect(mapped.ok && mapped.events.map((e) => (e.source as { publishedAt?: string }).publishedAt)).toEqual(
      [undefined, "2022-04-15T05:20:00Z"],
    );
    const figure = mapped.ok ? parseEnvelope(mapped.events[1]) : null;
    expect(figure?.ok).toBe(true);
  });

  it("given the same row edited again, then the same opening and a new figure, even at the same count", () => {
    const [opened, first] = ids(edited({ timestamp: "1650000000" }));
    const [reopened, again] = ids(edited({ timestamp: "1650600000" }));
    expect(reopened).toBe(opened);
    expect(again).not.toBe(first);
    // A count revised back to an earlier value, at a later edit, is a report of its own.
    const back = ids(edited({ fatalities: "57", timestamp: "1650900000" }))[1];
    expect([first, again]).not.toContain(back);
  });

  it("given the same row and timestamp twice, then the same ids (a rerun stores nothing)", () => {
    expect(ids(edited({ timestamp: "1650000000" }))).toEqual(ids(edited({ timestamp: "1650000000" })));
  });

  it("given a timestamp that is not Unix seconds, then the row fails naming it, with its other bad cells", () => {
    const bad = edited({ timestamp: "2022-04-15", fatalities: "x" });
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(["fatalities", "timestamp"]);
  });
});
