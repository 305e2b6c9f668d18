import { describe, expect, it } from "vitest";
import type { Summary } from "../summarize.js";
import {
  cellsCovering,
  cellsOf,
  countReportWords,
  factsOf,
  listedDay,
  MAX_EXTRA_SOURCES,
  MAX_REPORT_WORDS,
  Mentions,
  MONTHS_GOING_ON,
  monthStart,
  monthsGoingOn,
  passes,
  queryTerms,
  reportTextsIn,
  type SearchDoc,
  sourceKeysIn,
  withReportWords,
  withSources,
  words,
} from "./search-doc.js";

describe("words: what the index and the queries see", () => {
  it("given text with accents, case, punctuation and operators, then plain lowercase words", () => {
    expect(words("Kramatórsk STATION: “Tochka-U” (a.k.a. [x]) *.+?")).toEqual([
      "kramatorsk",
      "station",
      "tochka",
      "u",
      "a.k.a",
      "x",
    ]);
  });

  it("given words wrapped in bidi isolates, marks or soft hyphens, then the words a reader types", () => {
    expect(words("\u2067Odesa\u2069 Title\u202Eeltit Kramat\u00ADorsk \u200Fport\u200E \uFEFFpier")).toEqual([
      "odesa",
      "titleeltit",
      "kramatorsk",
      "port",
      "pier",
    ]);
    expect(queryTerms("\u2066odesa\u2069")).toEqual(["odesa"]);
    expect(words("\u202E\u2066\u00AD")).toEqual([]);
  });

  it("given a query, then its distinct words, at most eight, and none from symbols alone", () => {
    expect(queryTerms("odesa port odesa")).toEqual(["odesa", "port"]);
    expect(queryTerms("a b c d e f g h i j")).toEqual(["a", "b", "c", "d", "e", "f", "g", "h"]);
    // Of more than eight, the longest, in the order given.
    expect(queryTerms("the strike on the railway station in Kramatorsk on 8 April of 2022 at 10")).toEqual([
      "the",
      "strike",
      "on",
      "railway",
      "station",
      "kramatorsk",
      "april",
      "2022",
    ]);
    expect(queryTerms(".*+?()[]{}|^$")).toEqual([]);
  });
});

describe("cellsCovering: the grid cells a box reads", () => {
  it("given a box whose edge is the antimeridian or the north pole, then the cells its points lie in", () => {
    for (const [box, lat, lon] of [
      [{ minLon: 180, minLat: 0, maxLon: 180, maxLat: 10 }, 5, 180],
      [{ minLon: 0, minLat: 90, maxLon: 10, maxLat: 90 }, 90, 5],
      [{ minLon: 180, minLat: 90, maxLon: 180, maxLat: 90 }, 90, 180],
    ] as const) {
      const { level, cells } = cellsCovering(box);
      const home = cellsOf(lat, lon).find((c) => c.level === level)?.cell;
      expect(cells, JSON.stringify(box)).toContain(home);
    }
  });

  it("given a small box, then 1° cells; a country, then 10° cells; the world, then 32 cells of 45°", () => {
    expect(cellsCovering({ minLon: 30, minLat: 46, maxLon: 31, maxLat: 47 })).toEqual({
      level: 1,
      cells: ["46:30", "46:31", "47:30", "47:31"],
    });
    expect(cellsCovering({ minLon: 22, minLat: 44, maxLon: 41, maxLat: 53 }).level).toBe(10);
    const world = cellsCovering({ minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 });
    expect(world.level).toBe(45);
    expect(world.cells).toHaveLength(32);
  });

  it("given a point, then it lies in a cell the box around it reads, at every level", () => {
    const box = { minLon: 37.5, minLat: 48.7, maxLon: 37.6, maxLat: 48.8 };
    const covering = cellsCovering(box);
    const own = cellsOf(48.73, 37.58).find((c) => c.level === covering.level);
    expect(covering.cells).toContain(own?.cell);
  });
});

describe("passes: the filters an entry is checked against", () => {
  const facts = {
    occurred: "2022-04-08",
    until: "",
    lat: 48.73,
    lon: 37.58,
    kind: "missile-strike",
    country: "UA",
    contested: true,
  };
  it("given each filter that holds, then it passes; one that does not, then it fails", () => {
    expect(
      passes(facts, {
        from: "2022-04-08",
        to: "2022-04-08",
        kind: "missile-strike",
        country: "UA",
        contested: true,
      }),
    ).toBe(true);
    expect(passes(facts, { from: "2022-04-09" })).toBe(false);
    expect(passes(facts, { bbox: { minLon: 30, minLat: 40, maxLon: 35, maxLat: 50 } })).toBe(false);
    expect(passes({ ...facts, occurred: "" }, { to: "2030-01-01" })).toBe(false);
    expect(
      passes(
        { ...facts, lat: null, lon: null },
        { bbox: { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 } },
      ),
    ).toBe(false);
  });
});

describe("an incident that went on for days, in a date range", () => {
  const siege = {
    occurred: "2022-03-20",
    until: "2022-05-10",
    lat: 47.1,
    lon: 37.5,
    kind: "siege",
    country: "UA",
    contested: false,
  };

  it("given a range it overlaps at either end or within, then it passes; one before or after it, then not", () => {
    expect(passes(siege, { from: "2022-04-10", to: "2022-04-12" })).toBe(true);
    expect(passes(siege, { from: "2022-05-10", to: "2022-06-01" })).toBe(true);
    expect(passes(siege, { from: "2022-03-01", to: "2022-03-20" })).toBe(true);
    expect(passes(siege, { from: "2022-05-11" })).toBe(false);
    expect(passes(siege, { to: "2022-03-19" })).toBe(false);
  });

  it("given its summary, then its last day is its occurredUntil's day, and none when it ends the day it began", () => {
    const summary = (occurredOn: string, occurredUntil: string | null) =>
      ({ occurredOn, occurredAt: null, occurredUntil, location: null }) as unknown as Summary;
    expect(factsOf(summary("2022-03-20", "2022-05-10T12:00:00Z")).until).toBe("2022-05-10");
    expect(factsOf(summary("2022-03-20", "2022-03-20")).until).toBe("");
    expect(factsOf(summary("2022-03-20", null)).until).toBe("");
  });

  it("is indexed at the first of each later month, up to its last day's, at most 240", () => {
    expect(monthsGoingOn(siege)).toEqual(["2022-04-01", "2022-05-01"]);
    expect(monthsGoingOn({ ...siege, until: "2022-03-31" })).toEqual([]);
    expect(monthsGoingOn({ ...siege, occurred: "2021-12-31", until: "2022-01-01" })).toEqual(["2022-01-01"]);
    const decades = monthsGoingOn({ ...siege, until: "2099-01-01" });
    expect(decades).toHaveLength(MONTHS_GOING_ON);
    expect(decades.at(-1)).toBe("2042-03-01");
  });

  it("given any range it overlaps, then its listed day is one it is indexed at, within the range's months", () => {
    const days = ["2022-03-20", ...monthsGoingOn(siege)];
    const all = Array.from({ length: 120 }, (_, i) =>
      new Date(Date.UTC(2022, 1, 15) + i * 86_400_000).toISOString().slice(0, 10),
    );
    for (const from of all)
      for (const to of all) {
        if (from > to || !passes(siege, { from, to })) continue;
        const day = listedDay(siege, to);
        expect(days, `${from}..${to}`).toContain(day);
        expect(day >= monthStart(from) && day <= to, `${from}..${to}: ${day}`).toBe(true);
      }
    // Lasting past the months indexed: the last of them stands for every later one.
    const decades = { ...siege, occurred: "2000-01-15", until: "2025-06-30" };
    expect(monthsGoingOn(decades).at(-1)).toBe("2020-01-01");
    expect(listedDay(decades, "2021-12-31")).toBe("2020-01-01");
    expect(listedDay(decades, "2019-12-31")).toBe("2019-12-01");
    expect(listedDay(siege, "2022-04-15")).toBe("2022-04-01");
    expect(listedDay(siege, "2022-12-31")).toBe("2022-05-01");
    expect(listedDay(siege, "2022-03-25")).toBe("2022-03-20");
  });
});

/** A doc of no summary, with the words or sources a test gives it. */
const emptyDoc = (given: Partial<SearchDoc>): SearchDoc => ({
  incidentId: "i",
  version: 1,
  occurred: "",
  until: "",
  lat: null,
  lon: null,
  kind: "",
  country: "",
  contested: false,
  terms: new Map(),
  sources: new Map(),
  ...given,
});

describe("sourceKeysIn and withSources: sources the summary no longer lists", () => {
  it("given a statement, then its speaker and publisher, compared as sources are", () => {
    expect(
      sourceKeysIn({
        type: "StatementMade",
        source: { publisher: " Kyiv  Independent" },
        attributedTo: { name: "Andriy  Sadovyi" },
      }),
    ).toEqual(["Andriy Sadovyi", "Kyiv Independent"]);
  });

  it("given a private person's report, then their pseudonym alone, never the sealed name", () => {
    const keys = sourceKeysIn({
      type: "CasualtiesReported",
      source: { publisher: "Test Wire" },
      attributedTo: { kind: "private", ref: "witness-7", name: { $sealed: "abc" } },
    });
    expect(keys).toEqual(["ref:witness-7", "Test Wire"]);
  });

  it("given a retraction, a capture or a recorder's victims, then their speakers and publishers", () => {
    for (const type of ["ReportRetracted", "EvidenceCaptured", "VictimsRecorded", "VictimsLinked"])
      expect(
        sourceKeysIn({ type, source: { publisher: "Recorder Org" }, attributedTo: { name: "Field Team" } }),
        type,
      ).toEqual(["Field Team", "Recorder Org"]);
  });

  it("given an editor's event, then no source: only reports name the incident's sources", () => {
    expect(
      sourceKeysIn({
        type: "IncidentRevised",
        source: { publisher: "incident-ledger" },
        attributedTo: { name: "Desk" },
      }),
    ).toEqual([]);
  });

  it("given sources the summary does not list, then their names' words weigh as names, a pseudonym's not at all", () => {
    const doc = emptyDoc({ terms: new Map([["kyiv", 8]]) });
    const out = withSources(doc, ["Kyiv Independent", "ref:witness-7"]);
    expect([...out.terms]).toEqual([
      ["kyiv", 8],
      ["independent", 4],
    ]);
    expect([...out.sources.keys()]).toEqual(["Kyiv Independent", "ref:witness-7"]);
  });

  it("given more sources than the doc may add, then the summary's and the first MAX_EXTRA_SOURCES others", () => {
    const doc = emptyDoc({ sources: new Map([["Mayor", "Mayor"]]) });
    const more = Array.from({ length: MAX_EXTRA_SOURCES + 10 }, (_, i) => `S${i}`);
    const out = withSources(doc, ["Mayor", ...more]);
    expect(out.sources.size).toBe(1 + MAX_EXTRA_SOURCES);
    expect(out.sources.has("Mayor")).toBe(true);
    expect(out.sources.has(`S${MAX_EXTRA_SOURCES - 1}`)).toBe(true);
    expect(out.sources.has(`S${MAX_EXTRA_SOURCES}`)).toBe(false);
    expect(doc.sources.size).toBe(1);
  });
});

describe("report words: an incident is found by every quote and claim not retracted", () => {
  const report = (type: string, eventId: string, version: number, data: Record<string, unknown>) => ({
    type,
    eventId,
    version,
    source: { publisher: "Test Wire" },
    attributedTo: { name: "A Speaker" },
    data,
  });

  it("given a statement, a denial and a figure, then the quote and claims of the first two only", () => {
    expect(
      reportTextsIn(report("StatementMade", "s", 2, { quote: "Rockets fell", stance: "neutral" })),
    ).toEqual(["Rockets fell"]);
    expect(
      reportTextsIn(
        report("DenialIssued", "d", 3, { claim: "our strike", counterClaim: "a decoy", quote: "No." }),
      ),
    ).toEqual(["No.", "our strike", "a decoy"]);
    expect(
      reportTextsIn(report("CasualtiesReported", "c", 4, { figures: { killed: { value: 1 } } })),
    ).toEqual([]);
    // A value the client never sent as text (a sealed one is an object) is not read.
    expect(reportTextsIn(report("StatementMade", "x", 5, { quote: { $sealed: "sha-256:abc" } }))).toEqual([]);
  });

  it("given events folded, then their sources, what each report said, and each report retracted once", () => {
    const mentions = new Mentions();
    mentions.note(report("StatementMade", "s1", 2, { quote: "Rockets fell", stance: "neutral" }));
    mentions.note(report("ReportRetracted", "r1", 3, { targetEventId: "s1", reason: "misheard" }));
    mentions.note(report("ReportRetracted", "r2", 4, { targetEventId: "s1", reason: "again" }));
    mentions.note(report("ReportRetracted", "r3", 5, { targetEventId: "c9", reason: "x" }), false);
    expect([...mentions.sources]).toEqual(["A Speaker", "Test Wire"]);
    expect([...mentions.said]).toEqual([["s1", { version: 2, texts: ["Rockets fell"] }]]);
    // The first retraction of s1 took it back; the second and one that took nothing back do not count.
    expect([...mentions.retracted]).toEqual([["s1", 3]]);
  });

  it("given counts, reports said and reports retracted, then each word's live count, zeros dropped", () => {
    const before = new Map([
      ["depot", 2],
      ["fire", 1],
    ]);
    const out = countReportWords(before, [["depot", "bridge", "bridge"]], [["fire"], ["depot"]]);
    expect([...out]).toEqual([
      ["depot", 2],
      ["bridge", 1],
    ]);
    expect([...before]).toEqual([
      ["depot", 2],
      ["fire", 1],
    ]);
  });

  it("given more distinct words than are counted, then the first MAX_REPORT_WORDS, and the counted ones still count", () => {
    const many = Array.from({ length: MAX_REPORT_WORDS + 5 }, (_, i) => `w${i}`);
    const out = countReportWords(new Map(), [many, ["w0", `w${MAX_REPORT_WORDS}`]], []);
    expect(out.size).toBe(MAX_REPORT_WORDS);
    expect(out.get("w0")).toBe(2);
    expect(out.has(`w${MAX_REPORT_WORDS}`)).toBe(false);
  });

  it("given a doc and report words, then the words its summary lacks weigh as a quote, its own keep their weight", () => {
    const doc = emptyDoc({ terms: new Map([["depot", 8]]) });
    const out = withReportWords(
      doc,
      new Map([
        ["depot", 1],
        ["bridge", 2],
      ]),
    );
    expect([...out.terms]).toEqual([
      ["depot", 8],
      ["bridge", 1],
    ]);
    expect(doc.terms.size).toBe(1);
  });
});
