import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INCIDENT_COLUMNS } from "../../events/export/incident-row.js";
import { WELL_KNOWN_CATEGORIES } from "../../events/schemas.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { leafHashOf } from "../../events/transparency/leaf.js";
import { rootOf } from "../../events/transparency/merkle.js";
import type { LocalServer } from "../../functions/local/server.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";
import { loadSample, readWithPython, SAMPLE, text, waitForCheckpoint } from "./export-kit.js";

let archive: LocalServer;
let base: string;
let dir: string;
const SIZE = SAMPLE.length + 2;

beforeAll(async () => {
  archive = await startArchive();
  base = archive.url;
  dir = mkdtempSync(join(tmpdir(), "exports-"));
  await loadSample(base);
  // An incident whose texts a spreadsheet would run as formulas.
  await post(
    base,
    "formula-test-2024",
    opened("formula-opened", {
      title: '=HYPERLINK("http://x","y")',
      location: { name: "+cmd|' /C calc'!A0", country: "UA", lon: -3.5, lat: 40.25 },
    }),
  );
  await post(base, "formula-test-2024", casualties({ killed: { min: 3, max: 5 } }, "@mayor", "formula-toll"));
  await waitForCheckpoint(archive, SIZE);
});
afterAll(async () => {
  await archive?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function wholeFeed(limit: number): Promise<{ index: number; event: StoredEvent }[]> {
  const items: { index: number; event: StoredEvent }[] = [];
  let after = -1;
  for (;;) {
    const page = await call(base, "GET", `/feed?after=${after}&limit=${limit}`);
    expect(page.status).toBe(200);
    items.push(...page.body.items);
    if (page.body.next === null) return items;
    expect(page.body.next).toBe(items[items.length - 1]?.index);
    after = page.body.next;
  }
}

describe("GET /feed", () => {
  it("pages every stored event in log order, each as GET …/events returns it", async () => {
    const paged = await wholeFeed(5);
    expect(paged.map((i) => i.index)).toEqual(Array.from({ length: SIZE }, (_, i) => i));
    const whole = await call(base, "GET", "/feed");
    expect(whole.body).toEqual({ items: paged, next: null });
    // Each incident's versions in order, and exactly the stored events.
    const ids = [...new Set(paged.map((i) => i.event.incidentId))];
    for (const id of ids) {
      const stored = (await call(base, "GET", `/incidents/${id}/events?limit=500`)).body.items;
      expect(paged.filter((i) => i.event.incidentId === id).map((i) => i.event)).toEqual(stored);
    }
  });

  it("gives the events whose leaves hash to the signed checkpoint's root (recomputed here)", async () => {
    const items = await wholeFeed(1000);
    const checkpoint = await waitForCheckpoint(archive, SIZE);
    const root = Buffer.from(
      rootOf(items.slice(0, checkpoint.size).map((i) => leafHashOf(i.event))),
    ).toString("base64");
    expect(root).toBe(checkpoint.root);
    // The root the signed note itself states (its third line), not only the stored field.
    expect(checkpoint.text.split("\n")[2]).toBe(root);
  });

  it("answers an empty last page after the end, and next: null", async () => {
    const page = await call(base, "GET", `/feed?after=${SIZE - 1}`);
    expect(page.body).toEqual({ items: [], next: null });
  });
});

describe("exports", () => {
  it("are read by Python's csv and json modules with the same figures as the API", async () => {
    const csv = await text(base, "/export/incidents.csv");
    const ndjson = await text(base, "/export/events.ndjson");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("x-tree-size")).toBe(String(SIZE));
    expect(ndjson.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    writeFileSync(join(dir, "incidents.csv"), csv.body);
    writeFileSync(join(dir, "events.ndjson"), ndjson.body);
    const read = readWithPython(join(dir, "incidents.csv"), join(dir, "events.ndjson"));

    expect(Object.keys(read.rows[0] ?? {})).toEqual([...INCIDENT_COLUMNS]);
    const ids = read.rows.map((r) => r.incident_id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toHaveLength(4);
    const cell = (n: number | null) => (n === null ? "" : String(n));
    for (const row of read.rows) {
      const summary = (await call(base, "GET", `/incidents/${row.incident_id}`)).body;
      expect(row.version).toBe(String(summary.version));
      expect(row.head_hash).toBe(summary.headHash);
      expect(row.contested).toBe(String(summary.contested));
      expect(row.denials).toBe(String(summary.denials.length));
      expect(row.statements).toBe(String(summary.statements.count));
      expect(row.country).toBe(summary.location.country);
      for (const category of WELL_KNOWN_CATEGORIES) {
        const c = summary.casualties[category];
        expect([row[`${category}_low`], row[`${category}_high`], row[`${category}_sources`]]).toEqual(
          c ? [cell(c.low), cell(c.high), String(c.bySource.length)] : ["", "", "0"],
        );
      }
    }
    const kramatorsk = read.rows.find((r) => r.incident_id === "kramatorsk-station-2022-04-08");
    expect([kramatorsk?.killed_low, kramatorsk?.killed_high, kramatorsk?.killed_sources]).toEqual([
      "50",
      "",
      "2",
    ]);

    const feed = await wholeFeed(1000);
    expect(read.events).toEqual(feed.map((i) => i.event));
  });

  it("writes text a spreadsheet would run with a quote mark in front, and numbers as numbers", async () => {
    const csv = await text(base, "/export/incidents.csv");
    writeFileSync(join(dir, "guard.csv"), csv.body);
    writeFileSync(join(dir, "none.ndjson"), "");
    const row = readWithPython(join(dir, "guard.csv"), join(dir, "none.ndjson")).rows.find(
      (r) => r.incident_id === "formula-test-2024",
    );
    expect(row?.title).toBe('\'=HYPERLINK("http://x","y")');
    expect(row?.location_name).toBe("'+cmd|' /C calc'!A0");
    expect(row?.lon).toBe("-3.5");
    expect([row?.killed_low, row?.killed_high]).toEqual(["3", "5"]);
    expect(csv.body).toContain("\r\n");
  });

  it("at a tree size, show each incident as of its last version within those leaves, the same bytes every time", async () => {
    const feed = await wholeFeed(1000);
    const size = 10;
    const last = new Map<string, number>();
    for (const { event } of feed.slice(0, size)) last.set(event.incidentId, event.version);
    const first = await text(base, `/export/incidents.csv?treeSize=${size}`);
    expect(first.headers.get("x-tree-size")).toBe(String(size));
    writeFileSync(join(dir, "small.csv"), first.body);
    writeFileSync(
      join(dir, "small.ndjson"),
      (await text(base, `/export/events.ndjson?treeSize=${size}`)).body,
    );
    const read = readWithPython(join(dir, "small.csv"), join(dir, "small.ndjson"));
    expect(read.events).toEqual(feed.slice(0, size).map((i) => i.event));
    expect(read.rows.map((r) => [r.incident_id, Number(r.version)])).toEqual([...last].sort());
    for (const row of read.rows) {
      const past = (await call(base, "GET", `/incidents/${row.incident_id}?version=${row.version}`)).body;
      expect(row.head_hash).toBe(past.headHash);
      expect(row.killed_low).toBe(past.casualties.killed ? String(past.casualties.killed.low) : "");
    }

    // New events change nothing at that size.
    await post(
      base,
      "kramatorsk-station-2022-04-08",
      casualties({ killed: { value: 61, qualifier: "exact" } }, "Police"),
    );
    await waitForCheckpoint(archive, SIZE + 1);
    expect((await text(base, `/export/incidents.csv?treeSize=${size}`)).body).toBe(first.body);
    expect((await text(base, "/export/incidents.csv")).headers.get("x-tree-size")).toBe(String(SIZE + 1));
  });

  it("with treeSize=0 give the header alone and no events", async () => {
    expect((await text(base, "/export/incidents.csv?treeSize=0")).body).toBe(
      `${INCIDENT_COLUMNS.join(",")}\r\n`,
    );
    expect((await text(base, "/export/events.ndjson?treeSize=0")).body).toBe("");
  });
});

describe("the dashboard", () => {
  it("links the incident list to both exports, the releases and the feed", async () => {
    const page = await text(base, "/");
    for (const href of ["/export/incidents.csv", "/export/events.ndjson", "/releases", "/feed"])
      expect(page.body).toContain(`href="${href}"`);
  });
});

describe("bad queries", () => {
  it.each([
    ["/export/incidents.csv?treeSize=abc", "query.treeSize"],
    ["/export/events.ndjson?treeSize=1.5", "query.treeSize"],
    ["/export/events.ndjson?treeSize=-1", "query.treeSize"],
    ["/export/incidents.csv?treeSize=999999", "query.treeSize"],
    ["/export/incidents.csv?treesize=3", "query.treesize"],
    ["/export/events.ndjson?format=csv", "query.format"],
    ["/feed?limit=0", "query.limit"],
    ["/feed?limit=1001", "query.limit"],
    ["/feed?after=-2", "query.after"],
    ["/feed?after=x", "query.after"],
    ["/feed?from=3", "query.from"],
    // Numbers are read one way across the API: no leading zero, as /log/consistency reads them.
    ["/export/incidents.csv?treeSize=01", "query.treeSize"],
    ["/feed?after=-01", "query.after"],
    ["/incidents?limit=020", "query.limit"],
    ["/log/consistency?from=05", "query.from"],
  ])("%s answers 400 problem+json naming %s", async (path, field) => {
    const answer = await fetch(`${base}${path}`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toBe("application/problem+json");
    const body = (await answer.json()) as { errors: { path: string }[]; status: number };
    expect(body.status).toBe(400);
    expect(body.errors.map((e) => e.path)).toContain(field);
  });
});
