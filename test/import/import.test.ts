import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BEST_ABOVE_LOW } from "../../events/import/ucdp.js";
import { verifyChain } from "../../events/stored-event.js";
import { keysReversed } from "../../events/test-kit.js";
import type { LocalServer } from "../../functions/local/server.js";
import { call, startArchive } from "../support/archive.js";
import { startScript } from "../support/run-script.js";
import { FIXTURES, runImport, startImport, storedEvents } from "./import-kit.js";

let archive: LocalServer;
let dir: string;
beforeAll(async () => {
  archive = await startArchive();
  dir = await mkdtemp(join(tmpdir(), "import-"));
});
afterAll(() => archive.close());

function errorsOf(file: string): {
  row: number;
  line: number;
  fields: Record<string, unknown>;
  messages: { path: string; message: string }[];
}[] {
  return readFileSync(`${file}.import-errors.ndjson`, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

/**
 * The rows of an export naming these incidents, once the log's latest checkpoint holds them
 * (the exports are cut at it).
 */
async function exportedRows(
  name: string,
  idColumn: string,
  ids: string[],
): Promise<Record<string, string>[]> {
  const until = Date.now() + 20_000;
  for (;;) {
    const rows: Record<string, string>[] = parse(
      await (await fetch(`${archive.url}/export/${name}`)).text(),
      {
        columns: true,
      },
    );
    const found = rows.filter((r) => ids.includes(r[idColumn] ?? ""));
    if (found.length === ids.length || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function copy(name: string, transform: (text: string) => string | Buffer = (t) => t): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    transform(readFileSync(join(FIXTURES, name.replace(/^[a-z]+-(?=(acled|ucdp|recorder))/, "")), "utf8")),
  );
  return path;
}

describe("the README's recorder sheet (sample/)", () => {
  it("stores every row but the one with a word for a number, which a fixed rerun adds alone", async () => {
    const sample = fileURLToPath(new URL("../../sample/", import.meta.url));
    const file = join(dir, "recorder-sheet.csv");
    writeFileSync(file, readFileSync(join(sample, "recorder-sheet.csv")));
    const map = join(sample, "recorder-sheet.map.json");
    const first = await runImport(archive.url, [file, "--map", map]);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain("6 rows: 7 events stored, 0 already there, 1 row failed");
    expect(errorsOf(file).map((e) => [e.row, e.fields.killed, e.messages])).toEqual([
      [6, "dozens", [{ path: "killed", message: "must be an integer" }]],
    ]);
    const kramatorsk = (await call(archive.url, "GET", "/incidents/sheet-kramatorsk-2022-04-08")).body;
    expect(kramatorsk.casualties.killed).toMatchObject({ low: 50, high: null });
    expect(kramatorsk.statements.count).toBe(2);

    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("Anatoliy Fedoruk,dozens,", "Anatoliy Fedoruk,3,"),
    );
    // A run that stops before any row (a token the archive refuses) leaves the report as it was.
    const refused = await startScript("scripts/import/main.ts", [file, "--map", map], {
      LEDGER_URL: archive.url,
      LEDGER_TOKEN: "not-the-token-0123456789",
    }).done;
    expect(refused.code).toBe(2);
    expect(errorsOf(file).map((e) => e.row)).toEqual([6]);
    const fixed = await runImport(archive.url, [file, "--map", map]);
    expect(fixed.code).toBe(0);
    // A run with no failed row removes the earlier run's report.
    expect(existsSync(`${file}.import-errors.ndjson`)).toBe(false);
    expect(fixed.stdout).toContain("6 rows: 1 event stored, 7 already there, 0 rows failed");
    expect((await storedEvents(archive.url, "sheet-bucha-2022-04-08"))?.map((e) => e.type)).toEqual([
      "IncidentOpened",
      "CasualtiesReported",
      "CasualtiesReported",
    ]);
    // The mapping saved another way (its keys in another order, other spacing) names the same
    // events: nothing is stored twice.
    const resaved = join(dir, "recorder-sheet.resaved.map.json");
    writeFileSync(resaved, JSON.stringify(keysReversed(JSON.parse(readFileSync(map, "utf8"))), null, 4));
    const again = await runImport(archive.url, [file, "--map", resaved]);
    expect([again.code, again.stdout]).toEqual([
      0,
      expect.stringContaining("6 rows: 0 events stored, 8 already there"),
    ]);
  });
});

describe("npm run import --format acled", () => {
  it("stores every good row, reports the bad one in the middle, exits 1; a rerun stores nothing new", async () => {
    const file = copy("acled.csv");
    const first = await runImport(archive.url, [file, "--format", "acled"]);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain("4 events stored");
    const errors = errorsOf(file);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      row: 2,
      line: 3,
      fields: { event_id_cnty: "UKR90002", latitude: "not-a-number" },
    });
    expect(errors[0]?.messages).toEqual([{ path: "latitude", message: "must be a number from -90 to 90" }]);
    expect(await storedEvents(archive.url, "acled-ukr90002")).toBeNull();
    const kramatorsk = (await call(archive.url, "GET", "/incidents/acled-ukr90001")).body;
    expect(kramatorsk.location).toMatchObject({
      country: "UA",
      lat: 48.7305,
      lon: 37.5867,
      region: "Donetsk",
    });
    expect(kramatorsk.casualties.killed).toMatchObject({ low: 57, high: null });
    expect([kramatorsk.timePrecision, kramatorsk.location.precision]).toEqual(["day", "exact"]);
    expect(kramatorsk.casualties.killed.latest.attributedTo.name).toBe("ACLED");
    // No fatalities: no casualty report (at least 0 says nothing).
    expect((await storedEvents(archive.url, "acled-ukr90003"))?.map((e) => e.type)).toEqual([
      "IncidentOpened",
    ]);

    const again = await runImport(archive.url, [file, "--format", "acled"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("0 events stored, 4 already there");
    expect(await storedEvents(archive.url, "acled-ukr90001")).toHaveLength(2);
  });

  it("takes ACLED's revision of a row: its new figure is added to the incident, its unchanged opening stored once", async () => {
    const file = copy("revised-acled.csv", (text) =>
      text
        .replace(",57,,1650000000", ",61,,1650600000")
        .split("\n")
        .filter((line) => !line.startsWith("UKR90002,"))
        .join("\n"),
    );
    const revised = await runImport(archive.url, [file, "--format", "acled"]);
    expect(revised.stdout).toContain("1 event stored");
    expect(revised.code, revised.stdout).toBe(0);
    const kramatorsk = (await call(archive.url, "GET", "/incidents/acled-ukr90001")).body;
    expect(kramatorsk.casualties.killed.latest.figure).toMatchObject({ value: 61 });
    expect((await storedEvents(archive.url, "acled-ukr90001"))?.map((e) => e.type)).toEqual([
      "IncidentOpened",
      "CasualtiesReported",
      "CasualtiesReported",
    ]);
    // The same file again: nothing new.
    const rerun = await runImport(archive.url, [file, "--format", "acled"]);
    expect(rerun.stdout).toContain("0 events stored");
    // ACLED revised the count back to 57: that edit is its latest report, not the first 57 again.
    const back = copy("back-acled.csv", () =>
      readFileSync(file, "utf8").replace(",61,,1650600000", ",57,,1650900000"),
    );
    const reverted = await runImport(archive.url, [back, "--format", "acled"]);
    expect(reverted.code, reverted.stdout).toBe(0);
    expect(reverted.stdout).toContain("1 event stored");
    const latest = (await call(archive.url, "GET", "/incidents/acled-ukr90001")).body.casualties.killed
      .latest;
    expect(latest.figure).toMatchObject({ value: 57 });
    const stored = await storedEvents(archive.url, "acled-ukr90001");
    expect(stored?.map((e) => (e.source as { publishedAt?: string }).publishedAt)).toEqual([
      undefined,
      "2022-04-15T05:20:00Z",
      "2022-04-22T04:00:00Z",
      "2022-04-25T15:20:00Z",
    ]);
    expect(latest.eventId).toBe(stored?.[3]?.eventId);
    // A revision of its details too: the figure still goes in, and the row says the opening did not.
    const moved = copy("moved-acled.csv", (text) =>
      text.replace(",57,,1650000000", ",63,,1650700000").replace("48.7305,37.5867", "48.7400,37.5900"),
    );
    const again = await runImport(archive.url, [moved, "--format", "acled"]);
    expect(again.code).toBe(1);
    expect(
      (await call(archive.url, "GET", "/incidents/acled-ukr90001")).body.casualties.killed.latest.figure,
    ).toMatchObject({
      value: 63,
    });
    const opening = errorsOf(moved).find((e) => e.fields.event_id_cnty === "UKR90001");
    expect(opening?.messages).toEqual([
      {
        path: "events[0]",
        message: expect.stringContaining(
          "the opening was not stored: the archive holds incident acled-ukr90001",
        ),
      },
    ]);
  });

  it("maps time_precision and geo_precision, and acled.csv gives back the same codes", async () => {
    await runImport(archive.url, [copy("acled.csv"), "--format", "acled"]);
    const coded = await exportedRows("acled.csv", "event_id_cnty", [
      "acled-ukr90001",
      "acled-ukr90003",
      "acled-ukr90004",
    ]);
    expect(coded.map((r) => [r.event_id_cnty, r.time_precision, r.geo_precision])).toEqual([
      ["acled-ukr90001", "1", "1"],
      ["acled-ukr90003", "2", "2"],
      ["acled-ukr90004", "3", "3"],
    ]);
    // ACLED's 2 is its week, its 3 a larger region, placed at the region's capital.
    const region = (await call(archive.url, "GET", "/incidents/acled-ukr90004")).body;
    expect([region.timePrecision, region.location.precision]).toEqual(["month", "adm1"]);
    const week = (await call(archive.url, "GET", "/incidents/acled-ukr90003")).body;
    expect([week.timePrecision, week.location.precision]).toEqual(["week", "near"]);
  });

  it("refuses a file that lacks ACLED's columns before storing anything, naming them", async () => {
    const file = copy("short-acled.csv", (t) =>
      t
        .split("\n")
        .map((line) => line.split(",").slice(0, 20).join(","))
        .join("\n")
        .replace(/UKR9000/g, "UKR9100"),
    );
    const run = await runImport(archive.url, [file, "--format", "acled"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/lacks the ACLED columns location, latitude, longitude, source, fatalities/);
    expect(await storedEvents(archive.url, "acled-ukr91001")).toBeNull();
  });
});

describe("npm run import --format ucdp", () => {
  it("maps UCDP GED's best, low and high into a range with the best estimate in its words", async () => {
    const file = copy("ucdp.csv");
    const run = await runImport(archive.url, [file, "--format", "ucdp"]);
    expect(run.code).toBe(0);
    // Both rows' best is above their low (Mariupol's 16 above 12): what the summary's best cannot carry, said.
    expect(run.stdout).toContain(`note, 2 rows: ${BEST_ABOVE_LOW}.\n`);
    const mariupol = (await call(archive.url, "GET", "/incidents/ucdp-ged-500002")).body;
    expect(mariupol.kind).toBe("state-based-violence");
    expect(mariupol.occurredOn).toBe("2022-04-11");
    expect(mariupol.casualties.killed.latest.figure).toEqual({
      min: 12,
      max: 30,
      text: "UCDP best estimate 16 (low 12, high 30)",
    });
    expect(mariupol.casualties.civiliansKilled.low).toBe(2);
    expect(mariupol).toMatchObject({ occurredUntil: "2022-04-13", timePrecision: "days" });
    expect(mariupol.location.precision).toBe("near");
  });

  it("maps date_prec, where_prec and date_end, and ucdp-ged.csv gives back the same", async () => {
    expect((await runImport(archive.url, [copy("ucdp.csv"), "--format", "ucdp"])).code).toBe(0);
    const coded = await exportedRows("ucdp-ged.csv", "id", ["ucdp-ged-500001", "ucdp-ged-500002"]);
    expect(coded.map((r) => [r.id, r.date_prec, r.where_prec, r.date_start, r.date_end])).toEqual([
      ["ucdp-ged-500001", "1", "1", "2022-04-08", "2022-04-08"],
      ["ucdp-ged-500002", "2", "2", "2022-04-11", "2022-04-13"],
    ]);
    // The archive's own ucdp-ged.csv is a row per incident's summary: refused as such, by name.
    const own = join(dir, "own-ucdp-ged.csv");
    writeFileSync(own, await (await fetch(`${archive.url}/export/ucdp-ged.csv`)).text());
    const back = await runImport(archive.url, [own, "--format", "ucdp", "--dry-run"]);
    expect(back.code).toBe(2);
    expect(back.stderr).toMatch(
      /lacks the UCDP columns .*; it is an archive's own export \(its ledger_\* columns say so\), .* import that archive's events\.ndjson \(--format ndjson\) instead/,
    );
  });
});

describe("npm run import --format csv --map", () => {
  it("reads a BOM, CRLF line ends and a quoted newline; one incident from several rows", async () => {
    const file = copy("bom-recorder.csv", (t) =>
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t.replace(/\n/g, "\r\n"))]),
    );
    const run = await runImport(archive.url, [file, "--map", join(FIXTURES, "recorder.map.json")]);
    // Row 3 gives "many" killed: the mapping asks for an integer.
    expect(run.code).toBe(1);
    expect(errorsOf(file).map((e) => [e.row, e.messages])).toEqual([
      [3, [{ path: "killed", message: "must be an integer" }]],
    ]);
    const events = (await storedEvents(archive.url, "recorder-k-1")) ?? [];
    expect(events.map((e) => e.type)).toEqual([
      "IncidentOpened",
      "CasualtiesReported",
      "StatementMade",
      "CasualtiesReported",
    ]);
    expect((events[2]?.data as { quote?: string } | undefined)?.quote).toBe('"Dozens" were killed.');
    const summary = (await call(archive.url, "GET", "/incidents/recorder-k-1")).body;
    expect(summary.casualties.killed.low).toBe(57);
  });

  it("names a refused field by the column it came from, the event's field in the message", async () => {
    // A new case on a day written as words, in a country written out: the row fails, whole.
    const file = copy(
      "named-recorder.csv",
      (t) =>
        `${t.split("\n")[0]}\nk-9,Sloviansk,Ukraine,48.85,37.6,8 April 2022,Shelling of the square,AP,Governor,3,\n`,
    );
    const run = await runImport(archive.url, [file, "--map", join(FIXTURES, "recorder.map.json")]);
    expect(run.code).toBe(1);
    const [row] = errorsOf(file);
    expect(row?.messages.map((m) => m.path).sort()).toEqual(["country", "date"]);
    expect(row?.messages.find((m) => m.path === "date")?.message).toMatch(
      /\(it fills data\.occurredOn of the IncidentOpened\)$/,
    );
    expect(await storedEvents(archive.url, "recorder-k-9")).toBeNull();
  });

  it("refuses a mapping that names a column the file does not have, before storing anything", async () => {
    const map = join(dir, "bad.map.json");
    const mapping = JSON.parse(readFileSync(join(FIXTURES, "recorder.map.json"), "utf8"));
    mapping.incidentId = "other-{case}";
    mapping.events[0].fields["data.title"] = "{headline}";
    writeFileSync(map, JSON.stringify(mapping));
    const run = await runImport(archive.url, [copy("map-recorder.csv"), "--map", map]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'events[0].fields.data.title: names the column "headline", which the file does not have',
    );
    expect(await storedEvents(archive.url, "other-k-1")).toBeNull();
    // A sheet saved with semicolons: one column holding every name, and the hint says why.
    const semicolons = copy("semicolon-recorder.csv", (t) => t.replace(/,/g, ";"));
    const wrongSeparator = await runImport(archive.url, [
      semicolons,
      "--map",
      join(FIXTURES, "recorder.map.json"),
    ]);
    expect(wrongSeparator.code).toBe(2);
    expect(wrongSeparator.stderr).toContain(
      'its header is one column holding ";": the file is separated by ";", not commas; save it as CSV with commas',
    );
  });

  it.each([
    ["LF", "\n", "q"],
    ["CRLF", "\r\n", "c"],
  ])(
    "quoted newlines survive, a row with too few fields fails alone, and errors name the line it starts on (%s)",
    async (_ends, eol, id) => {
      const file = join(dir, `quoted-${id}.csv`);
      writeFileSync(
        file,
        [
          "case,place,country,lat,lon,date,what,outlet,speaker,killed,quote",
          `${id}-1,Izium,UA,49.2,37.25,2022-04-01,Shelling,BBC,Someone,3,"line one${eol}line two"`,
          `${id}-2,Izium,UA`,
          `${id}-3,Izium,UA,49.2,37.25,2022-04-02,Shelling,BBC,Someone,4,`,
          "",
          `${id}-4,Izium`,
          "",
        ].join(eol),
      );
      const run = await runImport(archive.url, [file, "--map", join(FIXTURES, "recorder.map.json")]);
      expect(run.code).toBe(1);
      // Row 1 spans lines 2 and 3; a blank line 6 is no row.
      expect(errorsOf(file).map((e) => [e.row, e.line, e.messages[0]?.message])).toEqual([
        [2, 4, "has 3 fields; the header has 11"],
        [4, 7, "has 2 fields; the header has 11"],
      ]);
      const first = (await storedEvents(archive.url, `recorder-${id}-1`)) ?? [];
      expect((first[2]?.data as { quote?: string } | undefined)?.quote).toBe(`line one${eol}line two`);
      expect(await storedEvents(archive.url, `recorder-${id}-3`)).toHaveLength(2);
    },
  );

  it("reads a quote inside a field as text, and reports a quote never closed as the row it opens, after storing the rows before it", async () => {
    const header = "case,place,country,lat,lon,date,what,outlet,speaker,killed,quote";
    const row = (id: string, quote: string) =>
      `${id},Izium,UA,49.2,37.25,2022-04-01,Shelling,BBC,Someone,3,${quote}`;
    const stray = join(dir, "stray-quotes.csv");
    writeFileSync(
      stray,
      [header, row("sq-1", 'He said "no" twice'), row("sq-2", '"fine"ly put'), ""].join("\n"),
    );
    const read = await runImport(archive.url, [stray, "--map", join(FIXTURES, "recorder.map.json")]);
    expect(read.code, read.stderr).toBe(0);
    const said = (await storedEvents(archive.url, "recorder-sq-1")) ?? [];
    expect((said[2]?.data as { quote?: string } | undefined)?.quote).toBe('He said "no" twice');
    expect(await storedEvents(archive.url, "recorder-sq-2")).toHaveLength(3);

    const unclosed = join(dir, "unclosed-quote.csv");
    writeFileSync(
      unclosed,
      [header, row("uq-1", "fine"), "", "", row("uq-2", '"never closed'), row("uq-3", "lost"), ""].join("\n"),
    );
    const run = await runImport(archive.url, [unclosed, "--map", join(FIXTURES, "recorder.map.json")]);
    expect(run.code, run.stderr).toBe(1);
    // Two blank lines come before it: the row opens on line 5.
    expect(errorsOf(unclosed).map((e) => [e.row, e.line])).toEqual([[2, 5]]);
    expect(errorsOf(unclosed)[0]?.messages[0]?.message).toMatch(
      /a quoted field opened on line 5 is never closed/,
    );
    expect(await storedEvents(archive.url, "recorder-uq-1")).toHaveLength(3);
    expect(await storedEvents(archive.url, "recorder-uq-3")).toBeNull();

    // A quote closed only by a later row's quote swallows the rows between: the row says so,
    // with the same lines whatever ends them.
    // Opened in the "what" column of row 1, closed in the "outlet" column of row 2: 10 fields.
    const opened = row("sw-1", "meant").replace(",Shelling,", ',"Shelling, heavy,');
    const closing = row("sw-2", "x").replace(",BBC,", ',BBC",');
    for (const [name, eol] of [
      ["lf", "\n"],
      ["crlf", "\r\n"],
    ] as const) {
      const swallowed = join(dir, `swallowed-row-${name}.csv`);
      writeFileSync(swallowed, [header, opened, closing, row("sw-3", "fine"), ""].join(eol));
      const ran = await runImport(archive.url, [swallowed, "--map", join(FIXTURES, "recorder.map.json")]);
      expect(ran.code, ran.stderr).toBe(1);
      expect(errorsOf(swallowed).map((e) => [e.row, e.line, e.messages[0]?.message])).toEqual([
        [
          1,
          2,
          expect.stringMatching(
            /^has \d+ fields; the header has 11; it runs from line 2 to line 3: if a quote \(".*\) opened in one of its fields was meant to close on line 2, the rows after it up to line 3 were read into this row/,
          ),
        ],
      ]);
    }
    expect(await storedEvents(archive.url, "recorder-sw-3")).toHaveLength(3);
  });

  it("refuses a file that is not UTF-8 before storing any row of it", async () => {
    const file = join(dir, "latin1.csv");
    const text = readFileSync(join(FIXTURES, "recorder.csv"), "utf8")
      .replace(/k-1/g, "l-1")
      .replace("Bucha", "Buch\u00e4");
    const bytes = Buffer.from(text, "latin1");
    writeFileSync(file, bytes);
    const run = await runImport(archive.url, [file, "--map", join(FIXTURES, "recorder.map.json")]);
    expect(run.code).toBe(2);
    // The byte named is the "ä" itself, not the one after it that shows it was not UTF-8.
    expect(run.stderr).toContain(`the file is not UTF-8: byte ${bytes.indexOf(0xe4)} (line 4)`);
    expect(await storedEvents(archive.url, "recorder-l-1")).toBeNull();
    // UTF-16 without a byte-order mark: its ASCII would pass as UTF-8, a NUL after each character.
    const utf16 = join(dir, "utf16.csv");
    writeFileSync(utf16, Buffer.from(text.replace("Buch\u00e4", "Bucha"), "utf16le"));
    const wide = await runImport(archive.url, [utf16, "--map", join(FIXTURES, "recorder.map.json")]);
    expect(wide.code).toBe(2);
    expect(wide.stderr).toContain("the file is not UTF-8 text: byte 1 (line 1) is a NUL byte");
    expect(wide.stderr).toContain("iconv -f UTF-16LE -t UTF-8");
  });

  it("--dry-run checks every row as the API would, a date after today too, and stores nothing", async () => {
    const unreadable = copy("dry-recorder.csv", (t) => t.replace(/k-1/g, "d-1").replace(/b-2/g, "d-2"));
    // Row 3's number is readable here, its date a year typed wrong.
    const ahead = copy("future-recorder.csv", (t) =>
      t
        .replace(/k-1/g, "f-1")
        .replace(/b-2/g, "f-2")
        .replace("2022-03-31", "2062-03-31")
        .replace(",many,", ",12,"),
    );
    for (const file of [unreadable, ahead]) {
      const run = await runImport(archive.url, [
        file,
        "--map",
        join(FIXTURES, "recorder.map.json"),
        "--dry-run",
      ]);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain("dry run: 3 rows, 4 events valid, 1 row failed; nothing stored.");
      expect(errorsOf(file)[0]?.row).toBe(3);
    }
    expect(await storedEvents(archive.url, "recorder-d-1")).toBeNull();
    expect(errorsOf(ahead)[0]?.messages).toEqual([
      expect.objectContaining({
        path: "date",
        message: expect.stringContaining("must not be after the day it is recorded"),
      }),
    ]);
  });
});

describe("npm run import --format ndjson", () => {
  it("refuses an empty file, as an empty CSV is refused", async () => {
    const empty = join(dir, "empty.ndjson");
    writeFileSync(empty, "");
    const run = await runImport(archive.url, [empty]);
    expect([run.code, run.stderr.trim()]).toEqual([
      2,
      "import stopped: the file is empty: no event to import",
    ]);
  });

  it("re-records another archive's export with importedFrom, renamed ids and their references; a bad line fails alone", async () => {
    const source = await startArchive();
    try {
      const opened = {
        eventId: "mirror-opened-1",
        type: "IncidentOpened",
        source: { publisher: "AP" },
        data: { title: "Strike", kind: "missile-strike", location: { name: "Kyiv", country: "UA" } },
      };
      const denial = {
        eventId: "mirror-denial-1",
        type: "DenialIssued",
        source: { publisher: "TASS" },
        attributedTo: { name: "Ministry of Defence" },
        data: { claim: "responsibility for the strike" },
      };
      const assessed = {
        eventId: "mirror-assessed-1",
        type: "ClaimAssessed",
        source: { publisher: "Bellingcat" },
        attributedTo: { name: "Bellingcat" },
        data: { targetEventId: "mirror-denial-1", verdict: "false" },
      };
      expect(
        (
          await call(source.url, "POST", "/incidents/mirror-kyiv-2024/events", {
            events: [opened, denial, assessed],
          })
        ).status,
      ).toBe(201);
      await source.sequencing.idle();
      const exported = await (await fetch(`${source.url}/export/events.ndjson`)).text();
      const file = join(dir, "events.ndjson");
      // Lines the API would refuse as a body: not JSON, nested past its bound, a name repeated.
      const deep = `{"type":"StatementMade","x":${"[".repeat(5000)}${"]".repeat(5000)}}`;
      // And a line changed after the archive wrote it: another incident's opening, its title edited.
      const edited = exported
        .split("\n")[0]
        ?.replace('"mirror-kyiv-2024"', '"mirror-edited-2024"')
        .replace('"Strike"', `"Strike, edited${" at length".repeat(500)}"`);
      writeFileSync(
        file,
        `${exported}{not json\n${deep}\n{"type":"StatementMade","type":"DenialIssued"}\n${edited}\n`,
      );
      const run = await runImport(archive.url, [file, "--origin", "source.example/log"]);
      expect(run.code).toBe(1);
      expect(errorsOf(file).map((e) => [e.row, e.messages[0]?.path, e.messages[0]?.message])).toEqual([
        [4, "(line)", expect.stringMatching(/^is not JSON/)],
        [5, "(line)", "nests objects and arrays more than 64 levels deep"],
        [6, "(line)", expect.stringMatching(/^repeats the member name "type"/)],
        [7, "hash", expect.stringMatching(/^does not recompute from the event/)],
      ]);
      expect(await storedEvents(archive.url, "mirror-edited-2024")).toBeNull();
      // A report line shows a long value cut, at any depth of the event.
      const reported = errorsOf(file).find((e) => e.row === 7)?.fields as { data: { title: string } };
      expect(reported.data.title).toHaveLength(2001);
      const events = (await storedEvents(archive.url, "mirror-kyiv-2024")) ?? [];
      const originals = exported
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(events).toHaveLength(3);
      events.forEach((event, i) => {
        expect(event.importedFrom).toEqual({
          origin: "source.example/log",
          index: i,
          hash: originals[i].hash,
        });
        expect(event.eventId).not.toBe(originals[i].eventId);
        expect(event.data).toEqual(
          i === 2 ? { ...originals[i].data, targetEventId: events[1]?.eventId } : originals[i].data,
        );
      });
      expect(verifyChain(events as never).ok).toBe(true);
      const summary = (await call(archive.url, "GET", "/incidents/mirror-kyiv-2024")).body;
      expect(summary.denials[0].status).toBe("false");
      const again = await runImport(archive.url, [file, "--origin", "source.example/log"]);
      expect(again.stdout).toContain("0 events stored, 3 already there");
      // A rerun without the first run's --origin would record other events under the same ids:
      // it stores nothing, and says so by the option, not as a clash of incidents.
      const otherOrigin = await runImport(archive.url, [file]);
      expect(otherOrigin.code).toBe(1);
      const reruns = errorsOf(file).filter((e) => e.row <= 3);
      expect(reruns.map((e) => e.row)).toEqual([1, 2, 3]);
      for (const rerun of reruns) {
        expect(rerun.messages.at(-1)?.message).toMatch(
          /stored here already, with another importedFrom.origin: a rerun stores nothing new only with the first run's --origin \(this run's is export:[0-9a-f]{16}\)$/,
        );
      }
      expect(await storedEvents(archive.url, "mirror-kyiv-2024")).toHaveLength(3);

      // An incident of the export whose id this archive already gives another incident: none
      // of its events is added to the one held here.
      const clash = "mirror-clash-2024";
      expect((await call(archive.url, "POST", `/incidents/${clash}/events`, opened)).status).toBe(201);
      const theirs = {
        ...opened,
        eventId: "mirror-clash-opened",
        data: { ...opened.data, title: "Another strike" },
      };
      const statement = (n: number) => ({
        eventId: `mirror-clash-said-${n}`,
        type: "StatementMade",
        source: { publisher: "AP" },
        attributedTo: { name: "Mayor" },
        data: { quote: `Words ${n}`, stance: "condemns" },
      });
      expect(
        (await call(source.url, "POST", `/incidents/${clash}/events`, { events: [theirs, statement(1)] }))
          .status,
      ).toBe(201);
      expect((await call(source.url, "POST", `/incidents/${clash}/events`, statement(2))).status).toBe(201);
      await source.sequencing.idle();
      const withClash = join(dir, "events-clash.ndjson");
      writeFileSync(withClash, await (await fetch(`${source.url}/export/events.ndjson`)).text());
      const clashed = await runImport(archive.url, [withClash, "--origin", "source.example/log"]);
      expect(clashed.code).toBe(1);
      const failures = errorsOf(withClash).map((e) => [e.row, e.messages[0]?.message ?? ""]);
      expect(failures.map(([row]) => row)).toEqual([4, 5, 6]);
      expect(failures[0]?.[1]).toMatch(/^409/);
      for (const [, message] of failures.slice(1))
        expect(message).toMatch(`not sent: this archive already holds an incident ${clash} of its own`);
      expect(await storedEvents(archive.url, clash)).toHaveLength(1);
    } finally {
      await source.close();
    }
  });
});

describe("an import killed halfway", () => {
  it("started again stores what was left, and nothing twice", async () => {
    const INCIDENTS = 100;
    const file = join(dir, "many.csv");
    const rows = ["case,place,country,lat,lon,date,what,outlet,speaker,killed,quote"];
    for (let i = 0; i < INCIDENTS; i += 1) {
      for (let j = 0; j < 5; j += 1) {
        rows.push(
          `m-${i},Place ${i},UA,48.${i},37.${j},2022-04-08,Strike ${i},Outlet ${j},Speaker ${j},${i + j},`,
        );
      }
    }
    writeFileSync(file, `${rows.join("\n")}\n`);
    const map = join(FIXTURES, "recorder.map.json");
    /** Waits until this many incidents are stored, well before all are. */
    const storedIncidents = async (count: number) => {
      for (;;) {
        await new Promise((r) => setTimeout(r, 50));
        const page = (await call(archive.url, "GET", "/incidents?limit=100")).body;
        if (
          page.items.filter((s: { incidentId: string }) => s.incidentId.startsWith("recorder-m-")).length >=
          count
        )
          return;
      }
    };
    // Ctrl-C: it says what it stored and that the same command goes on from there.
    const first = startImport(archive.url, [file, "--map", map, "--concurrency", "2"]);
    await storedIncidents(20);
    first.child.kill("SIGINT");
    const interrupted = await first.done;
    expect(interrupted.code).toBe(130);
    expect(interrupted.stderr).toMatch(
      /interrupted after \d+ rows read: \d+ events stored, .*Run the same command again to go on/,
    );
    // Killed outright: nothing said, nothing lost either.
    const second = startImport(archive.url, [file, "--map", map, "--concurrency", "2"]);
    await storedIncidents(40);
    second.child.kill("SIGKILL");
    await second.done;
    const done = await runImport(archive.url, [file, "--map", map]);
    expect(done.code).toBe(0);
    const stored = Number(/(\d+) events? stored/.exec(done.stdout)?.[1]);
    const already = Number(/(\d+) already there/.exec(done.stdout)?.[1]);
    expect(already).toBeGreaterThan(0);
    expect(stored).toBeGreaterThan(0);
    expect(stored + already).toBe(INCIDENTS * 6);
    const ids = new Set<string>();
    for (let i = 0; i < INCIDENTS; i += 1) {
      const events = (await storedEvents(archive.url, `recorder-m-${i}`)) ?? [];
      expect(events.map((e) => e.type)).toEqual([
        "IncidentOpened",
        "CasualtiesReported",
        "CasualtiesReported",
        "CasualtiesReported",
        "CasualtiesReported",
        "CasualtiesReported",
      ]);
      for (const e of events) ids.add(e.eventId as string);
    }
    expect(ids.size).toBe(INCIDENTS * 6);
  }, 120_000);
});
