import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACLED_COLUMNS } from "../../events/export/acled-row.js";
import { UCDP_COLUMNS } from "../../events/export/ucdp-row.js";
import type { LocalServer } from "../../functions/local/server.js";
import { loadSample, SAMPLE, text, waitForCheckpoint } from "../export/export-kit.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";

const KRAMATORSK = "kramatorsk-station-2022-04-08";
let archive: LocalServer;
let dir: string;
let ucdp: string;
let acled: string;

beforeAll(async () => {
  archive = await startArchive();
  await loadSample(archive.url);
  await waitForCheckpoint(archive, SAMPLE.length);
  dir = mkdtempSync(join(tmpdir(), "research-exports-"));
  ucdp = (await text(archive.url, `/export/ucdp-ged.csv?treeSize=${SAMPLE.length}`)).body;
  acled = (await text(archive.url, `/export/acled.csv?treeSize=${SAMPLE.length}`)).body;
  writeFileSync(join(dir, "ucdp-ged.csv"), ucdp);
  writeFileSync(join(dir, "acled.csv"), acled);
}, 60_000);
afterAll(() => archive.close());

/** Python's own csv module, as a researcher would read the file. */
function readWithPython(path: string): Record<string, string>[] {
  const program = [
    "import csv, json, sys",
    "with open(sys.argv[1], newline='', encoding='utf-8') as f:",
    "    print(json.dumps(list(csv.DictReader(f))))",
  ].join("\n");
  return JSON.parse(execFileSync("python3", ["-c", program, path], { encoding: "utf8" }));
}

/** DuckDB's CSV reader with its type sniffing: numbers must come back as numbers. */
async function readWithDuckDb(sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    return reader.getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("the Kramatorsk sample, coded for research", () => {
  it("given the sample, then its summary has day and exact precision, best 50 killed and a suggested grade of contested", async () => {
    const s = (await call(archive.url, "GET", `/incidents/${KRAMATORSK}`)).body;
    expect(s.timePrecision).toBe("day");
    expect(s.location.precision).toBe("exact");
    expect(s.casualties.killed).toMatchObject({ low: 50, high: null, best: 50, acled: 50 });
    // "dozens more" injured: 24 for best, 12 by ACLED's reading.
    expect(s.casualties.injured).toMatchObject({ best: 24, acled: 12 });
    expect(s.grade).toEqual({ given: null, suggested: "contested", count: 0 });
    expect(s.revisedInVersion).toBe(s.version);
  });
});

describe("ucdp-ged.csv and acled.csv", () => {
  it("given the sample, then Python's csv reads UCDP GED's columns with the coded values", () => {
    const rows = readWithPython(join(dir, "ucdp-ged.csv"));
    expect(Object.keys(rows[0] ?? {})).toEqual(UCDP_COLUMNS);
    expect(rows.map((r) => r.id)).toEqual([...new Set(SAMPLE.map((r) => r.incidentId))].sort());
    const k = rows.find((r) => r.id === KRAMATORSK);
    expect(k).toMatchObject({
      year: "2022",
      where_prec: "1",
      date_prec: "1",
      date_start: "2022-04-08",
      date_end: "2022-04-08",
      latitude: "48.7305",
      longitude: "37.5867",
      geom_wkt: "POINT (37.5867 48.7305)",
      country: "UA",
      adm_1: "Donetsk Oblast",
      best: "50",
      low: "50",
      high: "",
      deaths_unknown: "50",
      ledger_contested: "true",
      ledger_grade: "contested",
    });
    // Bucha never coded its precision: the codes are empty, not guessed.
    const bucha = rows.find((r) => r.id === "bucha-church-mass-grave-2022-04-08");
    expect(bucha).toMatchObject({ where_prec: "", date_prec: "", best: "67" });
  });

  it("given the sample, then Python's csv reads ACLED's columns with the most conservative fatalities", () => {
    const rows = readWithPython(join(dir, "acled.csv"));
    expect(Object.keys(rows[0] ?? {})).toEqual(ACLED_COLUMNS);
    expect(rows.find((r) => r.event_id_cnty === KRAMATORSK)).toMatchObject({
      event_date: "2022-04-08",
      year: "2022",
      time_precision: "1",
      geo_precision: "1",
      country: "UA",
      admin1: "Donetsk Oblast",
      location: "Kramatorsk railway station",
      fatalities: "50",
      source: "Associated Press",
    });
  });

  it("given the sample, then DuckDB reads both files with numbers as numbers", async () => {
    const [u] = await readWithDuckDb(
      `SELECT best, low, high, where_prec, date_prec, latitude FROM read_csv('${join(dir, "ucdp-ged.csv")}', header = true) WHERE id = '${KRAMATORSK}'`,
    );
    // Sniffed as BIGINT (a JS bigint) and DOUBLE: the cells are plain numbers, the empty high a NULL.
    const n = (v: number) => BigInt(v);
    expect(u).toMatchObject({
      best: n(50),
      low: n(50),
      high: null,
      where_prec: n(1),
      date_prec: n(1),
      latitude: 48.7305,
    });
    const [a] = await readWithDuckDb(
      `SELECT fatalities, time_precision, geo_precision FROM read_csv('${join(dir, "acled.csv")}', header = true) WHERE event_id_cnty = '${KRAMATORSK}'`,
    );
    expect(a).toMatchObject({ fatalities: BigInt(50), time_precision: BigInt(1), geo_precision: BigInt(1) });
  });

  it("given a release, then it links both layouts at its tree size", async () => {
    const release = await call(archive.url, "POST", "/releases", {
      name: "coding-layouts",
      note: "both layouts",
    });
    expect(release.status).toBe(201);
    const size = release.body.treeSize;
    expect(release.body.links).toMatchObject({
      ucdpGedCsv: expect.stringMatching(new RegExp(`/export/ucdp-ged\\.csv\\?treeSize=${size}$`)),
      acledCsv: expect.stringMatching(new RegExp(`/export/acled\\.csv\\?treeSize=${size}$`)),
    });
  });

  it("given more events after the cut, then both files at that tree size are the same bytes", async () => {
    await post(
      archive.url,
      KRAMATORSK,
      casualties({ killed: { value: 57, qualifier: "exact" } }, "Later count"),
    );
    await archive.stream.idle();
    await waitForCheckpoint(archive, SAMPLE.length + 1);
    expect((await text(archive.url, `/export/ucdp-ged.csv?treeSize=${SAMPLE.length}`)).body).toBe(ucdp);
    expect((await text(archive.url, `/export/acled.csv?treeSize=${SAMPLE.length}`)).body).toBe(acled);
    // The next cut holds the new report: three sources now, best their lower median, low the
    // smallest (not the range's 57, the largest lower bound: GED's low is never above best).
    const next = (await text(archive.url, `/export/ucdp-ged.csv?treeSize=${SAMPLE.length + 1}`)).body;
    writeFileSync(join(dir, "next.csv"), next);
    expect(readWithPython(join(dir, "next.csv")).find((r) => r.id === KRAMATORSK)).toMatchObject({
      best: "50",
      low: "50",
      high: "",
    });
  });

  it("given sources that disagree and a longitude of 1e-7, then every row keeps low ≤ best ≤ high and every file writes plain decimals", async () => {
    const id = "tiny-longitude-2024";
    const location = { name: "On the meridian", country: "FR", lat: 48.123456789012, lon: 1e-7 };
    expect((await post(archive.url, id, opened(undefined, { location }))).status).toBe(201);
    for (const [figure, name] of [
      [{ value: 40, qualifier: "exact" }, "Governor"],
      [{ value: 61, qualifier: "about" }, "Police"],
      [{ min: 45, max: 70 }, "Mayor"],
    ] as const)
      expect((await post(archive.url, id, casualties({ killed: figure }, name))).status).toBe(201);
    await archive.stream.idle();
    const size = SAMPLE.length + 1 + 4;
    await waitForCheckpoint(archive, size);
    const files: Record<string, string> = {};
    for (const name of ["ucdp-ged.csv", "acled.csv", "incidents.csv"]) {
      files[name] = (await text(archive.url, `/export/${name}?treeSize=${size}`)).body;
      writeFileSync(join(dir, `tiny-${name}`), files[name] as string);
    }
    const ucdpRows = readWithPython(join(dir, "tiny-ucdp-ged.csv"));
    expect(ucdpRows.find((r) => r.id === id)).toMatchObject({
      low: "40",
      best: "45",
      high: "70",
      longitude: "0.0000001",
      latitude: "48.123456789012",
      geom_wkt: "POINT (0.0000001 48.123456789012)",
    });
    for (const r of ucdpRows) {
      if (r.best === "") continue;
      expect(Number(r.low)).toBeLessThanOrEqual(Number(r.best));
      if (r.high !== "") expect(Number(r.best)).toBeLessThanOrEqual(Number(r.high));
    }
    expect(readWithPython(join(dir, "tiny-acled.csv")).find((r) => r.event_id_cnty === id)).toMatchObject({
      longitude: "0.0000001",
      fatalities: "40",
    });
    // incidents.csv keeps the archive's own range: the largest lower bound, about 61.
    expect(readWithPython(join(dir, "tiny-incidents.csv")).find((r) => r.incident_id === id)).toMatchObject({
      lon: "0.0000001",
      killed_low: "61",
      killed_high: "70",
    });
    for (const body of Object.values(files)) expect(body).not.toContain("1e-7");
  });
});
