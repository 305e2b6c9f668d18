import { type DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EntryFacts, listedDay, Mentions } from "../../events/finding/search-doc.js";
import { sourceKey, sourceKeysOf } from "../../events/source-key.js";
import type { Summary } from "../../events/summarize.js";
import {
  newestFirst,
  type SearchCursor,
  SearchIndex,
  type SearchQuery,
  YEARS_BACK_UNASKED,
} from "../../functions/finding/search-index.js";
import { type LocalStore, listenDynalite } from "../../functions/local/dynalite-store.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { mulberry32 } from "../support/seeded-random.js";

/**
 * The walk (a date range's years, a box's grid cells, a source, one word) paged with small limits
 * against a brute-force reference over synthetic incidents indexed in a real dynalite: every match
 * exactly once, in the index's order, however the pages fall. Deterministic: a fixed seed. A
 * range across a gap of more empty years than one request's Queries reach comes back short with
 * a cursor; no list here is long enough to reach a request's 1,000 entries.
 */

const random = mulberry32(0x5eed_2026);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const weighted = <T>(items: readonly [T, number][]): T => {
  let r = random() * items.reduce((sum, [, w]) => sum + w, 0);
  for (const [item, w] of items) {
    r -= w;
    if (r < 0) return item;
  }
  return (items[items.length - 1] as [T, number])[0];
};
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const pad = (n: number, width = 2) => String(n).padStart(width, "0");

const TITLE_WORDS = ["strike", "harbour", "depot", "bridge", "market", "convoy", "school", "shelling"];
const PLACES = ["Harbour", "Old Town", "Depot Lane", "Riverside", "Market Square"];
const SOURCES = ["Wire A", "Wire B", "Local Radio"];
/** Years with no incident at all (a walk reads them and finds nothing). */
const EMPTY_YEARS = new Set([1990, 1991, 1992, 1993, 2001, 2010, 2015, 2016]);
/** A few incidents two centuries back, past a gap of more years than one request reads. */
const OLD_YEARS = [1800, 1801, 1803, 1806];

interface Incident extends EntryFacts {
  id: string;
  title: string[];
  place: string;
  sources: string[];
}

const incidents: Incident[] = [];
const taken = new Set<string>();

function freshId(): string {
  for (;;) {
    const letters = Array.from({ length: 5 }, () => pick("abcdefghijklmnopqrstuvwxyz0123456789".split("")));
    const id = `w-${letters.join("")}`;
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

function randomDay(): string {
  const r = random();
  if (r < 0.03) return "";
  if (r < 0.18 && incidents.some((i) => i.occurred !== "")) {
    // The same day as one before: ties, ordered by incident id.
    return pick(incidents.filter((i) => i.occurred !== "")).occurred;
  }
  let year: number;
  do {
    year = random() < 0.04 ? pick(OLD_YEARS) : 1985 + Math.floor(random() * 42);
  } while (EMPTY_YEARS.has(year));
  const edge = random();
  if (edge < 0.1) return `${year}-01-01`;
  if (edge < 0.2) return `${year}-12-31`;
  return `${year}-${pad(1 + Math.floor(random() * 12))}-${pad(1 + Math.floor(random() * 28))}`;
}

function randomPoint(): { lat: number | null; lon: number | null } {
  const r = random();
  if (r < 0.12) return { lat: null, lon: null };
  // Around Odesa, across the 1° cells' edges at 46° and 30°/31°.
  if (r < 0.45) return { lat: round3(45.8 + random() * 1.4), lon: round3(29.7 + random() * 1.6) };
  // Ukraine and around.
  if (r < 0.65) return { lat: round3(44 + random() * 9), lon: round3(22 + random() * 19) };
  // Exactly on the lines between cells, and the ends of the map.
  if (r < 0.72)
    return pick([
      { lat: 46, lon: 30 },
      { lat: 45, lon: -45 },
      { lat: -90, lon: -180 },
      { lat: 90, lon: 180 },
      { lat: 0, lon: 0 },
      { lat: -0.5, lon: 179.9 },
    ]);
  return { lat: round3(-89.9 + random() * 179.8), lon: round3(-179.9 + random() * 359.8) };
}

/** About one incident in five went on for days: up to a week, a few months, or over a year (across years and decades). */
function randomUntil(occurred: string): string {
  if (occurred === "" || random() < 0.8) return "";
  const days = weighted([
    [1 + Math.floor(random() * 7), 4],
    [20 + Math.floor(random() * 100), 4],
    [300 + Math.floor(random() * 500), 2],
  ]);
  return new Date(Date.parse(`${occurred}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function makeIncident(id: string, occurred: string, until = randomUntil(occurred)): Incident {
  const { lat, lon } = randomPoint();
  const title = [...new Set(Array.from({ length: 2 + Math.floor(random() * 2) }, () => pick(TITLE_WORDS)))];
  return {
    id,
    occurred,
    until,
    lat,
    lon,
    kind: weighted([
      ["shelling", 40],
      ["airstrike", 30],
      ["raid", 20],
      ["ambush", 7],
      ["massacre", 3],
    ]),
    country: weighted([
      ["UA", 50],
      ["SY", 20],
      ["HR", 15],
      ["YE", 15],
    ]),
    contested: random() < 0.2,
    title,
    place: pick(PLACES),
    sources: SOURCES.filter(() => random() < 0.4),
  };
}

for (let i = 0; i < 150; i++) incidents.push(makeIncident(freshId(), randomDay()));
// "Wire C" both as a source's name and as a private person's pseudonym (its key `ref:Wire C`),
// some incidents naming both: a search for "Wire C" finds each of them once.
for (const [n, i] of incidents.entries()) {
  if (n % 3 === 0) i.sources.push("Wire C");
  if (n % 5 === 0) i.sources.push("ref:Wire C");
}
// Both sides of year boundaries, and ids one the prefix of another on one day.
for (const [id, day] of [
  ["w-edge-a", "1999-12-31"],
  ["w-edge-a-2", "1999-12-31"],
  ["w-edge-b", "2000-01-01"],
  ["w-edge-c", "2000-01-01"],
  ["w-edge", "2000-01-01"],
  ["w-old-a", "1749-12-31"],
  ["w-old-b", "1750-01-01"],
  ["w-old-c", "1750-06-15"],
  ["w-old-d", "1806-12-31"],
] as const) {
  taken.add(id);
  incidents.push(makeIncident(id, day, ""));
}
/** The year after next: beyond the end a date range without `to` reads to by default. */
const AHEAD = new Date().getUTCFullYear() + 2;
// A siege across a year's and a decade's end, and one that began the day the others' range ends.
for (const [id, day, until] of [
  ["w-siege", "2009-11-20", "2010-02-10"],
  ["w-siege-2", "2009-12-31", "2010-01-06"],
  ["w-siege-3", "2010-01-06", "2010-03-01"],
  // Dated after next year (a plan, a typo): a source's or a box's walk from then still finds them.
  ["w-ahead-siege", `${AHEAD}-11-01`, `${AHEAD + 1}-03-01`],
  ["w-ahead", `${AHEAD + 1}-02-10`, ""],
  ["w-ahead-before", `${AHEAD}-06-01`, `${AHEAD + 1}-01-10`],
] as [string, string, string][]) {
  taken.add(id);
  incidents.push({ ...makeIncident(id, day, until), sources: ["Wire A"], lat: 46.5, lon: 30.5 });
}

function summaryOf(i: Incident): Summary {
  const partial: Partial<Summary> = {
    incidentId: i.id,
    version: 1,
    title: i.title.join(" "),
    kind: i.kind,
    location: {
      name: i.place,
      country: i.country,
      ...(i.lat !== null && i.lon !== null ? { lat: i.lat, lon: i.lon } : {}),
    },
    occurredOn: i.occurred === "" ? null : i.occurred,
    occurredAt: null,
    occurredUntil: i.until === "" ? null : i.until,
    description: null,
    casualties: {},
    statements: { count: 0, latest: [] },
    denials: [],
    contested: i.contested,
  };
  return partial as Summary;
}

const stored = new Map(incidents.map((i) => [i.id, summaryOf(i)]));
const summaries = async (ids: string[]) => {
  const out = new Map<string, Summary>();
  for (const id of ids) {
    const s = stored.get(id);
    if (s) out.set(id, s);
  }
  return out;
};

/** A word's weight in an incident as the index gives it: title 8, place 6. */
function weightOf(i: Incident, word: string): number {
  const inPlace = i.place.toLowerCase().split(" ").includes(word);
  return (i.title.includes(word) ? 8 : 0) + (inPlace ? 6 : 0);
}

interface Case {
  name: string;
  query: Omit<SearchQuery, "limit" | "cursor">;
  /** Limits to page with (limit 1 only where the answer is short enough to page one by one). */
  limits: number[];
}

/**
 * The reference: every incident the query matches, in the index's order, by brute force. A date
 * range matches an incident that went on at any day of it; the date-ordered lists then order
 * each by its listed day (the newest month it went on in within the range).
 */
function expected(query: Case["query"]): string[] {
  const terms = query.q === undefined ? [] : query.q.toLowerCase().split(/\s+/);
  const yearWalk = terms.length === 0 && query.sources === undefined && query.bbox === undefined;
  const dated = query.from !== undefined || query.to !== undefined;
  // A walk of years reads from `to`'s year (else next year) back to `from`'s, else to the oldest
  // year an incident occurred in, or YEARS_BACK_UNASKED before `to` where that is older.
  const lastYear = `${new Date().getUTCFullYear() + 1}-12-31`;
  const to = query.to ?? (yearWalk ? lastYear : undefined);
  const oldest = Math.min(
    ...incidents.filter((i) => i.occurred !== "").map((i) => Number(i.occurred.slice(0, 4))),
  );
  const backFrom = (end: string) =>
    pad(Math.min(Number(end.slice(0, 4)) - YEARS_BACK_UNASKED, query.to === undefined ? 9999 : oldest), 4);
  const back = to === undefined ? undefined : backFrom(to);
  const from = query.from ?? (yearWalk ? `${back}-01-01` : undefined);
  const lastDay = (i: Incident) => (i.until !== "" ? i.until : i.occurred);
  const sourceOk = (i: Incident) =>
    query.sources === undefined || i.sources.some((s) => query.sources?.includes(sourceKey({ name: s })));
  const matching = incidents.filter((i) => {
    if ((from !== undefined || to !== undefined) && i.occurred === "") return false;
    if (from !== undefined && lastDay(i) < from) return false;
    if (to !== undefined && i.occurred > to) return false;
    if (query.kind !== undefined && i.kind !== query.kind) return false;
    if (query.country !== undefined && i.country !== query.country) return false;
    if (query.contested !== undefined && i.contested !== query.contested) return false;
    if (query.bbox) {
      const b = query.bbox;
      if (i.lat === null || i.lon === null) return false;
      if (i.lat < b.minLat || i.lat > b.maxLat || i.lon < b.minLon || i.lon > b.maxLon) return false;
    }
    if (!sourceOk(i)) return false;
    return terms.length === 0 || terms.some((t) => weightOf(i, t) > 0);
  });
  // The lists of later months are read back to `from`'s month, else YEARS_BACK_UNASKED before
  // `to`; an incident whose listed day is older is taken at the day it began.
  // Without `to`: next year's end, or `from` where a source's or a box's walk starts later still.
  const spread = query.sources !== undefined || query.bbox !== undefined;
  const end =
    query.to ?? (spread && query.from !== undefined && query.from > lastYear ? query.from : lastYear);
  const reach = `${(from ?? `${backFrom(end)}-01-01`).slice(0, 7)}-01`;
  const dayOf = (i: Incident) => {
    if (terms.length > 0 || !(dated || yearWalk)) return i.occurred;
    const day = listedDay(i, end);
    return day >= reach ? day : i.occurred;
  };
  const newestThenId = (a: Incident, b: Incident) =>
    dayOf(a) !== dayOf(b) ? (dayOf(a) > dayOf(b) ? -1 : 1) : a.id < b.id ? -1 : 1;
  if (terms.length === 0) return matching.sort(newestThenId).map((i) => i.id);
  // Words: most words matched, then their summed weight, then newest, then id (one word: its weight).
  const matched = (i: Incident) => terms.filter((t) => weightOf(i, t) > 0).length;
  const weight = (i: Incident) => terms.reduce((sum, t) => sum + weightOf(i, t), 0);
  return matching
    .sort((a, b) => matched(b) - matched(a) || weight(b) - weight(a) || newestThenId(a, b))
    .map((i) => i.id);
}

const MAX_PAGES = 500;
/** What a projection of these summaries' events names: their sources (no statements to count). */
const naming = (names: readonly string[]) => {
  const mentions = new Mentions();
  for (const name of names) mentions.sources.add(sourceKey({ name }));
  return mentions;
};
/** No stored events: these summaries are indexed without any. */
const noEvents = async () => null;
const noEventsAfter = async function* () {};
let store: LocalStore;
let db: DynamoDBClient;
let index: SearchIndex;

/**
 * The pages of a query from a cursor, to the end (or until `enough` incidents), checking each
 * page's length and that each cursor moves on.
 */
async function pageThrough(
  query: Case["query"],
  limit: number,
  cursor?: SearchCursor,
  enough = Number.POSITIVE_INFINITY,
): Promise<{ ids: string[]; pages: { ids: string[]; after: SearchCursor[] }[]; end: boolean }> {
  const ids: string[] = [];
  const pages: { ids: string[]; after: SearchCursor[] }[] = [];
  let at = cursor;
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await index.search({ ...query, limit, ...(at ? { cursor: at } : {}) }, summaries);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    expect(page.after).toHaveLength(page.items.length);
    const pageIds = page.items.map((s) => s.incidentId);
    ids.push(...pageIds);
    pages.push({ ids: pageIds, after: page.after });
    if (page.next === null) return { ids, pages, end: true };
    if (ids.length >= enough) return { ids, pages, end: false };
    // A cursor that does not move on would page forever.
    expect(JSON.stringify(page.next)).not.toBe(JSON.stringify(at));
    at = page.next;
  }
  throw new Error(`${JSON.stringify(query)} limit ${limit}: more than ${MAX_PAGES} pages`);
}

beforeAll(async () => {
  store = await listenDynalite({ host: "127.0.0.1", port: 0 });
  db = createDynamoClient(store.endpoint);
  const tables = {
    events: "walk-events",
    claims: "walk-claims",
    views: "walk-views",
    search: "walk-search",
  };
  await createTables(db, tables);
  index = new SearchIndex(db, tables.search, async (id) => stored.get(id) ?? null, noEvents, noEventsAfter);
  for (let i = 0; i < incidents.length; i += 8) {
    await Promise.all(
      incidents.slice(i, i + 8).map((inc) => index.update(inc.id, undefined, naming(inc.sources))),
    );
  }
});

afterAll(async () => {
  db?.destroy();
  await store?.close();
});

const tieDay = (() => {
  const counts = new Map<string, number>();
  for (const i of incidents) if (i.occurred !== "") counts.set(i.occurred, (counts.get(i.occurred) ?? 0) + 1);
  return [...counts.entries()].find(([, n]) => n >= 3)?.[0] ?? "2000-01-01";
})();

const WORLD = { minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 };
const CASES: Case[] = [
  {
    name: "a range of years with empty ones",
    query: { from: "2000-01-01", to: "2012-12-31" },
    limits: [1, 7],
  },
  { name: "a range without to", query: { from: "2011-03-15" }, limits: [3, 7] },
  {
    name: "a range without from (reaching back to the oldest year, past 150)",
    query: { to: "2003-06-30" },
    limits: [7],
  },
  { name: "a range without from, back to the oldest year", query: { to: "1900-12-31" }, limits: [3] },
  {
    name: "a range across a gap longer than one request reads, filtered",
    query: { from: "1700-01-01", to: "2026-12-31", kind: "airstrike" },
    limits: [7],
  },
  {
    name: "a range ending and starting on year edges",
    query: { from: "1999-12-31", to: "2000-01-01" },
    limits: [1, 3],
  },
  { name: "one day of ties", query: { from: tieDay, to: tieDay }, limits: [1, 3] },
  {
    name: "a range with kind and country",
    query: { from: "1985-01-01", to: "2026-12-31", kind: "raid", country: "UA" },
    limits: [1, 7],
  },
  {
    name: "a small box across 1° cells",
    query: { bbox: { minLon: 29.9, minLat: 45.9, maxLon: 31.1, maxLat: 46.8 } },
    limits: [3, 7],
  },
  {
    name: "a country-sized box",
    query: { bbox: { minLon: 22, minLat: 44, maxLon: 41, maxLat: 53 } },
    limits: [7],
  },
  {
    name: "a box at the edge of the map",
    query: { bbox: { minLon: 170, minLat: -90, maxLon: 180, maxLat: 90 } },
    limits: [1, 3],
  },
  { name: "the world", query: { bbox: WORLD }, limits: [7] },
  { name: "the world, contested", query: { bbox: WORLD, contested: true }, limits: [3] },
  {
    name: "the world with a range and a kind",
    query: { bbox: WORLD, from: "1995-01-01", to: "2020-12-31", kind: "shelling" },
    limits: [7],
  },
  { name: "a rare kind in a box", query: { bbox: WORLD, kind: "massacre" }, limits: [1, 3] },
  { name: "a source", query: { sources: [sourceKey({ name: "Wire A" })] }, limits: [3, 7] },
  {
    name: "a source and a kind",
    query: { sources: [sourceKey({ name: " Local  Radio " })], kind: "shelling" },
    limits: [1, 3],
  },
  {
    name: "a source and a range without to",
    query: { sources: [sourceKey({ name: "Wire B" })], from: "1999-12-31" },
    limits: [3],
  },
  {
    name: "a name that is a source's and a pseudonym",
    query: { sources: sourceKeysOf("Wire C") },
    limits: [1, 3, 7],
  },
  {
    name: "a name and a pseudonym, and a kind",
    query: { sources: sourceKeysOf(" Wire C"), kind: "shelling" },
    limits: [1, 3],
  },
  {
    name: "a box and a range without from",
    query: { bbox: { minLon: 22, minLat: 44, maxLon: 41, maxLat: 53 }, to: "2000-01-01" },
    limits: [1, 3],
  },
  { name: "one word", query: { q: "Harbour" }, limits: [3, 7] },
  {
    name: "one word and a range",
    query: { q: "depot", from: "2005-01-01", to: "2024-12-31" },
    limits: [1, 3],
  },
  {
    name: "one word and a source",
    query: { q: "bridge", sources: [sourceKey({ name: "Wire B" })] },
    limits: [1, 3],
  },
  {
    name: "one word and a name or pseudonym",
    query: { q: "market", sources: sourceKeysOf("Wire C") },
    limits: [1, 3],
  },
  {
    name: "two words and a name or pseudonym",
    query: { q: "market bridge", sources: sourceKeysOf("Wire C") },
    limits: [3],
  },
  { name: "two words, ranked", query: { q: "harbour depot" }, limits: [3, 7] },
  {
    name: "two days inside sieges that began before them",
    query: { from: "2010-01-05", to: "2010-01-06" },
    limits: [1, 3],
  },
  {
    name: "a source and a range within a siege",
    query: { sources: [sourceKey({ name: "Wire A" })], from: "2010-01-20", to: "2010-02-05" },
    limits: [1, 3],
  },
  {
    name: "a box and a range across a decade's end",
    query: { bbox: { minLon: 30, minLat: 46, maxLon: 31, maxLat: 47 }, from: "2009-12-15", to: "2010-01-10" },
    limits: [1, 3],
  },
  {
    name: "a range ending the day a siege began",
    query: { from: "2009-06-01", to: "2009-11-20" },
    limits: [3],
  },
  {
    name: "a source and a range from after next year, without to",
    query: { sources: [sourceKey({ name: "Wire A" })], from: `${AHEAD + 1}-01-24` },
    limits: [1, 3],
  },
  {
    name: "a box and a range from after next year, without to",
    query: { bbox: { minLon: 30, minLat: 46, maxLon: 31, maxLat: 47 }, from: `${AHEAD + 1}-01-24` },
    limits: [1, 3],
  },
];

describe("the walk: a search paged through to the end against a brute-force reference", () => {
  it("given synthetic incidents, then every case has matches to page through", () => {
    for (const c of CASES) expect(expected(c.query).length, c.name).toBeGreaterThan(0);
  });

  for (const c of CASES) {
    it(`given ${c.name}, when paged with limits ${c.limits.join(", ")}, then every match once, in the index's order`, async () => {
      const want = expected(c.query);
      for (const limit of c.limits) {
        const { ids, pages } = await pageThrough(c.query, limit);
        expect(ids, `limit ${limit}`).toEqual(want);
        // A page cut short after any of its items (as the byte cut does) goes on from the next match.
        let before = 0;
        for (const [n, page] of pages.entries()) {
          if (page.ids.length > 0 && n % 6 === 0) {
            const i = (n * 7) % page.ids.length;
            const rest = await pageThrough(c.query, limit, page.after[i], limit + 1);
            const from = before + i + 1;
            expect(rest.ids, `limit ${limit}, after item ${i} of page ${n}`).toEqual(
              rest.end ? want.slice(from) : want.slice(from, from + rest.ids.length),
            );
          }
          before += page.ids.length;
        }
      }
    });
  }
});

describe("a name that is both a source's and a pseudonym", () => {
  it("given incidents naming it both ways, when paged, then each once and every page but the last full", async () => {
    const query = { sources: sourceKeysOf("Wire C") };
    const both = incidents.filter((i) => i.sources.includes("Wire C") && i.sources.includes("ref:Wire C"));
    expect(both.length).toBeGreaterThan(3);
    const { ids, pages } = await pageThrough(query, 4);
    expect(new Set(ids).size).toBe(ids.length);
    for (const page of pages.slice(0, -1)) expect(page.ids).toHaveLength(4);
  });
});

describe("the walk past one request's reads, and entries a lost race left", () => {
  const BULK = 1_101;
  const bulk = new Map<string, Summary>();
  let bulkIndex: SearchIndex;
  const bulkOf = async (ids: string[]) =>
    new Map(ids.flatMap((id) => (bulk.has(id) ? [[id, bulk.get(id) as Summary]] : [])));

  beforeAll(async () => {
    await createTables(db, {
      events: "bulk-events",
      claims: "bulk-claims",
      views: "bulk-views",
      search: "bulk-search",
    });
    bulkIndex = new SearchIndex(
      db,
      "bulk-search",
      async (id) => bulk.get(id) ?? null,
      noEvents,
      noEventsAfter,
    );
    // One wire names every incident; the oldest alone has the word "needle" and the kind "raid".
    for (let i = 0; i < BULK; i++) {
      const day = new Date(Date.UTC(2020, 0, 1) + (BULK - i) * 86_400_000).toISOString().slice(0, 10);
      const id = `bulk-${pad(i, 4)}`;
      bulk.set(id, {
        ...summaryOf(makeIncident(id, day)),
        title: i === BULK - 1 ? "needle in the stack" : "hay",
        kind: i === BULK - 1 ? "raid" : "shelling",
      });
    }
    const ids = [...bulk.keys()];
    for (let i = 0; i < ids.length; i += 16)
      await Promise.all(
        ids.slice(i, i + 16).map((id) => bulkIndex.update(id, undefined, naming(["Bulk Wire"]))),
      );
  }, 60_000);

  it("given a source naming more than a request reads, when one word or two are asked with it, then the oldest match is found", async () => {
    const wire = [sourceKey({ name: "Bulk Wire" })];
    for (const q of ["needle", "needle stack"]) {
      const page = await bulkIndex.search({ q, sources: wire, limit: 20 }, bulkOf);
      expect(
        page.items.map((s) => s.incidentId),
        q,
      ).toEqual([`bulk-${pad(BULK - 1, 4)}`]);
    }
  });

  it("given a filter only the oldest entry passes, when walked, then a short page with a cursor, and the match after it", async () => {
    const wire = [sourceKey({ name: "Bulk Wire" })];
    const first = await bulkIndex.search({ sources: wire, kind: "raid", limit: 20 }, bulkOf);
    expect(first.items).toEqual([]);
    expect(first.next).not.toBeNull();
    const second = await bulkIndex.search(
      { sources: wire, kind: "raid", limit: 20, cursor: first.next as SearchCursor },
      bulkOf,
    );
    expect(second.items.map((s) => s.incidentId)).toEqual([`bulk-${pad(BULK - 1, 4)}`]);
    expect(second.next).toBeNull();
  });

  it("given an incident indexed before entries kept its last day, then a date range finds it by its first day", async () => {
    const id = "bulk-0005";
    const now = bulk.get(id) as Summary;
    const day = now.occurredOn as string;
    const later = new Date(Date.parse(`${day}T00:00:00Z`) + 40 * 86_400_000).toISOString().slice(0, 10);
    // Its view gains an end its entries never heard of (indexed before they kept one).
    bulk.set(id, { ...now, occurredUntil: later });
    try {
      const found = async (query: Omit<SearchQuery, "limit">) =>
        (await bulkIndex.search({ ...query, limit: 50 }, bulkOf)).items.map((s) => s.incidentId);
      expect(await found({ from: day, to: day })).toContain(id);
      expect(await found({ sources: [sourceKey({ name: "Bulk Wire" })], from: day, to: day })).toContain(id);
    } finally {
      bulk.set(id, now);
    }
  });

  it("given entries an older version left (another cell, another date), then the incident once, only where it is now", async () => {
    const id = "bulk-0000";
    const now = bulk.get(id) as Summary;
    const { lat, lon } = { lat: 46.5, lon: 30.5 };
    bulk.set(id, { ...now, version: 2, location: { name: "Odesa", country: "UA", lat, lon } });
    await bulkIndex.update(id, undefined);
    // What a projector that lost the race to this version may leave: its entries for the old
    // place, one cell over, and for an old date.
    const facts = {
      id: { S: id },
      occ: { S: "1999-05-05" },
      kind: { S: "shelling" },
      country: { S: "UA" },
      contested: { BOOL: false },
      lat: { N: "46.5" },
      lon: { N: "31.5" },
    };
    for (const pk of ["g1#46:31", "o#1999"])
      await db.send(
        new PutItemCommand({
          TableName: "bulk-search",
          Item: { pk: { S: pk }, sk: { S: `${newestFirst("1999-05-05")}#${id}` }, ...facts },
        }),
      );
    const ids = async (query: Omit<SearchQuery, "limit">) => {
      const found: string[] = [];
      let cursor: SearchCursor | null = null;
      for (let page = 0; page < 100; page++) {
        const got = await bulkIndex.search({ ...query, limit: 100, ...(cursor ? { cursor } : {}) }, bulkOf);
        found.push(...got.items.map((s) => s.incidentId));
        cursor = got.next;
        if (!cursor) return found;
      }
      throw new Error("more than 100 pages");
    };
    const box = await ids({ bbox: { minLon: 30, minLat: 46, maxLon: 31.9, maxLat: 46.9 } });
    expect(box.filter((found) => found === id)).toEqual([id]);
    expect(await ids({ from: "1999-01-01", to: "1999-12-31" })).not.toContain(id);
  });
});
