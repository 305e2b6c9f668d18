import { describe, expect, it } from "vitest";
import type { Envelope } from "../schemas.js";
import type { Summary } from "../summarize.js";
import { about, assessment, atLeast, casualties, exact, given, opened } from "../test-kit.js";
import { ACLED_COLUMNS, acledCells, acledRecord } from "./acled-row.js";
import { INCIDENT_COLUMNS, incidentCells, incidentRecord } from "./incident-row.js";
import { UCDP_COLUMNS, ucdpCells, ucdpReads, ucdpRecord } from "./ucdp-row.js";

const ucdp = (s: Summary, column: string) => ucdpCells(s)[UCDP_COLUMNS.indexOf(column)];
const acled = (s: Summary, column: string) => acledCells(s)[ACLED_COLUMNS.indexOf(column)];

/** The envelope as published by another publisher (the kit's are all AP's). */
const from = (publisher: string, e: Envelope): Envelope => ({ ...e, source: { publisher } });

/** The kit's opening with its data changed: `undefined` leaves a field out. */
function openedWith(data: Record<string, unknown>): Envelope {
  const o = opened();
  const merged: Record<string, unknown> = { ...(o.data as Record<string, unknown>), ...data };
  for (const key of Object.keys(data)) if (data[key] === undefined) delete merged[key];
  return { ...o, data: merged } as Envelope;
}

/** GED's order: low ≤ best ≤ high, high unchecked when empty (open-ended). */
function expectGedOrder(s: Summary) {
  const [low, best, high] = ["low", "best", "high"].map((c) => ucdp(s, c) as number | null);
  expect(low).not.toBeNull();
  expect(low).toBeLessThanOrEqual(best as number);
  if (high !== null && high !== undefined) expect(best as number).toBeLessThanOrEqual(high);
}

describe("ucdp-ged.csv's low, best and high", () => {
  it("given at least 50 and exactly 61, when a row is made, then low is 50, not the range's 61, and best 50", () => {
    given(opened(), casualties("c1", "Governor", { killed: atLeast(50) }))
      .when(casualties("c2", "Police", { killed: exact(61) }))
      .then((s) => {
        expect([ucdp(s, "low"), ucdp(s, "best"), ucdp(s, "high")]).toEqual([50, 50, null]);
        // incidents.csv keeps the archive's own range.
        expect(incidentCells(s)[INCIDENT_COLUMNS.indexOf("killed_low")]).toBe(61);
      });
  });

  it("given three sources that disagree, when a row is made, then low ≤ best ≤ high, low the smallest", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(40) }),
      casualties("c2", "Police", { killed: about(61) }),
    )
      .when(casualties("c3", "Mayor", { killed: { min: 45, max: 70 } }))
      .then((s) => {
        expect([ucdp(s, "low"), ucdp(s, "best"), ucdp(s, "high")]).toEqual([40, 45, 70]);
        expect(incidentCells(s)[INCIDENT_COLUMNS.indexOf("killed_low")]).toBe(61);
        expectGedOrder(s);
      });
  });

  it.each<[string, Envelope[]]>([
    [
      "at most and dozens",
      [
        casualties("c1", "A", { killed: { value: 30, qualifier: "at-most" } }),
        casualties("c2", "B", { killed: { qualifier: "dozens" } }),
      ],
    ],
    [
      "hundreds above an exact figure",
      [
        casualties("c1", "A", { killed: exact(150) }),
        casualties("c2", "B", { killed: { qualifier: "hundreds" } }),
      ],
    ],
    [
      "ranges that do not overlap",
      [
        casualties("c1", "A", { killed: { min: 1, max: 2 } }),
        casualties("c2", "B", { killed: { min: 80, max: 90 } }),
        casualties("c3", "C", { killed: exact(85) }),
      ],
    ],
    [
      "the largest lower bound assessed false",
      [
        casualties("c1", "A", { killed: exact(12) }),
        casualties("c2", "B", { killed: exact(500) }),
        assessment("a1", "c2", "false"),
      ],
    ],
  ])("given %s, when a row is made, then low ≤ best ≤ high", (_mix, reports) => {
    given(opened(), ...reports)
      .when()
      .then((s) => expectGedOrder(s));
  });

  it("given the only source assessed false, when a row is made, then low, best and high are empty and no source is counted", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(100) }))
      .when(assessment("a1", "c1", "false"))
      .then((s) => {
        expect(["deaths_unknown", "best", "low", "high"].map((c) => ucdp(s, c))).toEqual([
          null,
          null,
          null,
          null,
        ]);
        expect([ucdp(s, "number_of_sources"), ucdp(s, "source_article")]).toEqual([0, null]);
        expect(acled(s, "fatalities")).toBe(null);
        expect(acled(s, "source")).toBe(null);
        // incidents.csv keeps the archive's range of every live report, assessed or not.
        expect(incidentCells(s)[INCIDENT_COLUMNS.indexOf("killed_high")]).toBe(100);
        expect(incidentCells(s)[INCIDENT_COLUMNS.indexOf("killed_sources")]).toBe(1);
      });
  });

  it("given one source assessed false and another that stands, when a row is made, then high is the range of both and both are counted", () => {
    given(opened(), from("Reuters", casualties("c1", "Governor", { killed: exact(12) })))
      .when(casualties("c2", "Police", { killed: exact(500) }), assessment("a1", "c2", "false"))
      .then((s) => {
        expect([ucdp(s, "low"), ucdp(s, "best"), ucdp(s, "high")]).toEqual([12, 12, 500]);
        expect([ucdp(s, "number_of_sources"), ucdp(s, "source_article")]).toEqual([
          2,
          "Associated Press; Reuters",
        ]);
      });
  });

  it("given killed figures that do not count and injured ones that do, when a row is made, then only the injured figures' publisher is a source", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(100) }),
      from("Reuters", casualties("c2", "Police", { injured: exact(7) })),
    )
      .when(assessment("a1", "c1", "false"))
      .then((s) => {
        expect([ucdp(s, "best"), ucdp(s, "high")]).toEqual([null, null]);
        expect([ucdp(s, "number_of_sources"), ucdp(s, "source_article")]).toEqual([1, "Reuters"]);
        expect(acled(s, "source")).toBe("Reuters");
      });
  });

  it("given a view stored before lowest existed, then the row does not read from it", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(10) }))
      .when()
      .then((s) => {
        expect(ucdpReads(s)).toBe(true);
        const { lowest: _, ...before } = s.casualties.killed as NonNullable<Summary["casualties"]["killed"]>;
        expect(ucdpReads({ ...s, casualties: { ...s.casualties, killed: before } })).toBe(false);
        expect(ucdpReads({ ...s, casualties: {} })).toBe(true);
      });
  });
});

describe("coordinates in the research rows", () => {
  const at = (lat: number, lon: number): Envelope => {
    const o = opened();
    const data = o.data as { location: Record<string, unknown> };
    return { ...o, data: { ...data, location: { ...data.location, lat, lon } } } as Envelope;
  };

  it("given a longitude of 1e-7, when the rows are written, then every file has it in plain decimal", () => {
    given(at(48.123456789012, 1e-7))
      .when()
      .then((s) => {
        expect(ucdp(s, "longitude")).toBe(1e-7);
        expect(ucdp(s, "geom_wkt")).toBe("POINT (0.0000001 48.123456789012)");
        for (const record of [ucdpRecord(s), acledRecord(s), incidentRecord(s)]) {
          expect(record).toContain(",0.0000001,");
          expect(record).toContain("48.123456789012");
          expect(record).not.toContain("1e-7");
        }
      });
  });

  it("given a negative longitude of -1e-7, when the UCDP row is written, then the point is in plain decimal too", () => {
    given(at(-0.000001, -1e-7))
      .when()
      .then((s) => {
        expect(ucdp(s, "geom_wkt")).toBe("POINT (-0.0000001 -0.000001)");
        expect(ucdpRecord(s)).toContain(",-0.000001,-0.0000001,POINT (-0.0000001 -0.000001),");
      });
  });
});

describe("the precision codes and the dates they qualify", () => {
  it("given an opening coded to the day that gives no date, when the rows are made, then both precision columns are empty, as the dates are", () => {
    given(openedWith({ occurredOn: undefined, timePrecision: "day" }))
      .when()
      .then((s) => {
        expect(["year", "date_start", "date_end", "date_prec"].map((c) => ucdp(s, c))).toEqual([
          null,
          null,
          null,
          null,
        ]);
        expect(["event_date", "year", "time_precision"].map((c) => acled(s, c))).toEqual([null, null, null]);
      });
  });

  it("given an opening coded to the day with its day, when the rows are made, then the precision is coded beside it", () => {
    given(openedWith({ timePrecision: "day" }))
      .when()
      .then((s) => {
        expect(["date_start", "date_prec"].map((c) => ucdp(s, c))).toEqual(["2022-04-08", 1]);
        expect(["event_date", "time_precision"].map((c) => acled(s, c))).toEqual(["2022-04-08", 1]);
      });
  });

  it("given an opening coded to the week without a date, when a revision gives its day, then the precision is coded", () => {
    const revision: Envelope = {
      eventId: "revised-day",
      type: "IncidentRevised",
      source: { publisher: "Associated Press" },
      data: { occurredOn: "2022-04-07" },
    };
    given(openedWith({ occurredOn: undefined, timePrecision: "week" }))
      .when(revision)
      .then((s) => {
        expect(["date_start", "date_prec"].map((c) => ucdp(s, c))).toEqual(["2022-04-07", 3]);
        expect(["event_date", "time_precision"].map((c) => acled(s, c))).toEqual(["2022-04-07", 2]);
      });
  });
});
