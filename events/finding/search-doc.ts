import { EDITOR_TYPES } from "../schemas.js";
import { sourceKey } from "../source-key.js";
import type { Summary } from "../summarize.js";

/**
 * What the search index holds of one incident, derived from its summary alone (so it can always
 * be rebuilt): its words with a weight by where they occur, the sources and speakers it names,
 * and the few facts the filters read (when it occurred, where, kind, country, contested).
 */
export interface SearchDoc {
  incidentId: string;
  version: number;
  /** `YYYY-MM-DD` of when it occurred (occurredOn, or the day of occurredAt); "" when unknown. */
  occurred: string;
  /** `YYYY-MM-DD` of the last day it went on (occurredUntil), when after `occurred`; else "". */
  until: string;
  lat: number | null;
  lon: number | null;
  kind: string;
  country: string;
  contested: boolean;
  /** Word → weight (1–15): the sum of its fields' weights, capped. */
  terms: Map<string, number>;
  /** sourceKey → the name as first seen: every speaker and publisher the summary names (and, withSources, its events). */
  sources: Map<string, string>;
}

/** At most this many words per incident are indexed (the heaviest). */
export const MAX_TERMS = 400;
/** Words a query is searched by, at most (queryTerms says which). */
export const MAX_QUERY_TERMS = 8;
const MAX_WEIGHT = 15;
const WEIGHTS = { title: 8, place: 6, source: 4, claim: 3, description: 2, quote: 1 } as const;

const segmenter = new Intl.Segmenter("en", { granularity: "word" });

/**
 * Invisible characters that text copied from a page or a right-to-left document carries inside
 * or around a word: bidi marks, embeddings and isolates, the soft hyphen, word joiners. They are
 * dropped, so "\u2067Odesa\u2069" and "Kramat\u00ADorsk" are the words a reader types. Zero-width
 * space stays a break (Thai and Khmer separate words with it); ZWJ and ZWNJ stay (they spell).
 */
const INVISIBLE = /[\u00AD\u061C\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/gu;

/**
 * The words of a text as the index and the queries see them: Unicode word segmentation,
 * compatibility-normalised, marks and invisible controls stripped (so "Kramatorsk" matches
 * "Kramatórsk"), lowercased; 1–40 characters each. No stemming: a word matches itself.
 */
export function words(text: string): string[] {
  const out: string[] = [];
  const plain = text.normalize("NFKD").replace(/\p{M}/gu, "").replace(INVISIBLE, "").toLowerCase();
  for (const segment of segmenter.segment(plain)) {
    if (!segment.isWordLike) continue;
    const word = segment.segment;
    if (word.length <= 40) out.push(word);
  }
  return out;
}

/**
 * A query's words, distinct, in the order given: of more than MAX_QUERY_TERMS, the longest (the
 * earlier of two as long), so that a sentence pasted into the box is searched by its telling
 * words ("Kramatorsk", "station"), not cut off after its first eight ("on", "the").
 */
export function queryTerms(q: string): string[] {
  const distinct = [...new Set(words(q.slice(0, 2000)))];
  if (distinct.length <= MAX_QUERY_TERMS) return distinct;
  const kept = new Set(
    distinct
      .map((word, at) => ({ word, at }))
      .sort((a, b) => b.word.length - a.word.length || a.at - b.at)
      .slice(0, MAX_QUERY_TERMS)
      .map(({ word }) => word),
  );
  return distinct.filter((word) => kept.has(word));
}

/** Sources an incident's entries hold at most beyond its summary's (its doc item lists them all). */
export const MAX_EXTRA_SOURCES = 500;

/**
 * The source keys one report (any type a writer posts) names: its speaker (a private person by pseudonym alone: the
 * name is sealed) and its publisher. A summary lists only an incident's latest statements and
 * each source's latest figures; these keep a source findable after it drops out of them.
 */
export function sourceKeysIn(event: {
  type: string;
  source?: { publisher?: unknown };
  attributedTo?: { name?: unknown; kind?: unknown; ref?: unknown };
}): string[] {
  // The editors' types are the archive's own judgements, not reports: their publisher is no source.
  if ((EDITOR_TYPES as readonly string[]).includes(event.type)) return [];
  const keys: string[] = [];
  const by = event.attributedTo;
  if (by?.kind === "private") {
    if (typeof by.ref === "string" && by.ref !== "")
      keys.push(sourceKey({ name: "", kind: "private", ref: by.ref }));
  } else if (typeof by?.name === "string" && by.name.trim() !== "") keys.push(sourceKey({ name: by.name }));
  const publisher = event.source?.publisher;
  if (typeof publisher === "string" && publisher.trim() !== "") keys.push(sourceKey({ name: publisher }));
  return keys;
}

/** Distinct words of an incident's reports its entries hold beyond its summary's, at most. */
export const MAX_REPORT_WORDS = 1_000;

/** The texts of a report that `q` finds it by: a statement's or a denial's quote and claims. */
export function reportTextsIn(event: { type: string; data?: unknown }): string[] {
  if (event.type !== "StatementMade" && event.type !== "DenialIssued") return [];
  const data = (event.data ?? {}) as Record<string, unknown>;
  return [data.quote, data.claim, data.counterClaim].filter((t): t is string => typeof t === "string");
}

/**
 * What the events of one projection name, for the finding index: the sources (sourceKeysIn),
 * the texts of each statement and denial, and the reports their retractions took back. A summary
 * lists only the latest statements and rows, so these keep an incident findable by an older
 * speaker or quote; a retracted quote's words are taken back (countReportWords).
 */
export class Mentions {
  /** `from`: the version the events noted follow (a fold's start), so a reader knows what they cover. */
  constructor(readonly from = 0) {}

  readonly sources = new Set<string>();
  /** eventId → the version and texts of each statement or denial folded. */
  readonly said = new Map<string, { version: number; texts: string[] }>();
  /** eventId of each report retracted → the version of the retraction that took it back. */
  readonly retracted = new Map<string, number>();

  /** `tookEffect`: false for a retraction of a report retracted before, which takes nothing back again. */
  note(
    event: { type: string; version: number; eventId: string; data?: unknown } & Parameters<
      typeof sourceKeysIn
    >[0],
    tookEffect = true,
  ): void {
    for (const key of sourceKeysIn(event)) this.sources.add(key);
    const texts = reportTextsIn(event);
    if (texts.length > 0) this.said.set(event.eventId, { version: event.version, texts });
    const target = (event.data as { targetEventId?: unknown } | undefined)?.targetEventId;
    if (
      event.type === "ReportRetracted" &&
      tookEffect &&
      typeof target === "string" &&
      !this.retracted.has(target)
    )
      this.retracted.set(target, event.version);
  }
}

/**
 * The live count of each word an incident's reports say: from `counts`, one more for each
 * report in `said` that says it and one fewer for each in `unsaid` (reports retracted), a word at
 * zero dropped. At most MAX_REPORT_WORDS words are counted; a new one past that is not.
 */
export function countReportWords(
  counts: ReadonlyMap<string, number>,
  said: Iterable<readonly string[]>,
  unsaid: Iterable<readonly string[]>,
): Map<string, number> {
  const out = new Map(counts);
  for (const words of said)
    for (const word of new Set(words))
      if (out.has(word) || out.size < MAX_REPORT_WORDS) out.set(word, (out.get(word) ?? 0) + 1);
  for (const words of unsaid)
    for (const word of new Set(words)) {
      const left = (out.get(word) ?? 0) - 1;
      if (left > 0) out.set(word, left);
      else out.delete(word);
    }
  return out;
}

/** The doc with the words its reports say and its summary no longer shows, weighed as a quote. */
export function withReportWords(doc: SearchDoc, counts: ReadonlyMap<string, number>): SearchDoc {
  const terms = new Map(doc.terms);
  for (const [word, count] of counts) if (count > 0 && !terms.has(word)) terms.set(word, WEIGHTS.quote);
  return { ...doc, terms };
}

/**
 * The doc with sources named elsewhere (by its events, or in its entries before) added, up to
 * MAX_EXTRA_SOURCES, and the words of their names weighed as names: `q` finds a publisher the
 * summary does not list, as `source` does. A private person's key is a pseudonym, not a name.
 */
export function withSources(doc: SearchDoc, keys: Iterable<string>, wordsOf = words): SearchDoc {
  const sources = new Map(doc.sources);
  const terms = new Map(doc.terms);
  const most = doc.sources.size + MAX_EXTRA_SOURCES;
  for (const key of keys) {
    if (sources.size >= most) break;
    if (key === "" || sources.has(key)) continue;
    sources.set(key, key);
    if (key.startsWith("ref:")) continue;
    for (const word of wordsOf(key)) if (!terms.has(word)) terms.set(word, WEIGHTS.source);
  }
  return { ...doc, sources, terms };
}

export function searchDoc(summary: Summary, wordsOf: (text: string) => string[] = words): SearchDoc {
  const weights = new Map<string, number>();
  const add = (text: string | null | undefined, weight: number) => {
    if (!text) return;
    for (const word of new Set(wordsOf(text)))
      weights.set(word, Math.min(MAX_WEIGHT, (weights.get(word) ?? 0) + weight));
  };
  const sources = new Map<string, string>();
  const named = (who: { name: string; kind?: string; ref?: string } | undefined) => {
    if (typeof who?.name !== "string" || who.name === "") return;
    const key = sourceKey(who);
    if (!sources.has(key)) sources.set(key, who.kind === "private" ? key : who.name);
    // A private person's name is sealed: the index keeps only the public key of such a source.
    if ((who as { kind?: string }).kind !== "private") add(who.name, WEIGHTS.source);
  };
  const publisher = (name: string | undefined) => {
    if (!name) return;
    const key = sourceKey({ name });
    if (!sources.has(key)) sources.set(key, name);
    add(name, WEIGHTS.source);
  };
  add(summary.title, WEIGHTS.title);
  add(summary.location?.name, WEIGHTS.place);
  add(summary.location?.region, WEIGHTS.place);
  add(summary.description, WEIGHTS.description);
  for (const category of Object.values(summary.casualties ?? {})) {
    for (const row of category.bySource ?? []) {
      named(row.attributedTo);
      publisher(row.publisher);
    }
  }
  for (const statement of summary.statements?.latest ?? []) {
    named(statement.attributedTo);
    add(statement.quote, WEIGHTS.quote);
    for (const a of statement.assessments ?? []) named(a.attributedTo);
  }
  for (const denial of summary.denials ?? []) {
    named(denial.attributedTo);
    add(denial.claim, WEIGHTS.claim);
    add(denial.counterClaim, WEIGHTS.claim);
    add(denial.quote, WEIGHTS.quote);
    for (const a of denial.assessments ?? []) named(a.attributedTo);
  }
  const terms = new Map(
    [...weights.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_TERMS),
  );
  return { incidentId: summary.incidentId, version: summary.version, ...factsOf(summary), terms, sources };
}

/** What the filters check of an incident, as its summary says now (its entries carry a copy). */
export function factsOf(summary: Summary): EntryFacts {
  const lat = summary.location?.lat;
  const lon = summary.location?.lon;
  const occurred = summary.occurredOn ?? (summary.occurredAt ? summary.occurredAt.slice(0, 10) : "");
  const until = summary.occurredUntil?.slice(0, 10) ?? "";
  return {
    occurred,
    until: occurred !== "" && until > occurred ? until : "",
    lat: typeof lat === "number" ? lat : null,
    lon: typeof lon === "number" ? lon : null,
    kind: summary.kind ?? "",
    country: summary.location?.country ?? "",
    contested: summary.contested === true,
  };
}

function lastDay(facts: EntryFacts): string {
  return facts.until !== "" ? facts.until : facts.occurred;
}

/**
 * Months after the first an incident is indexed as going on in, at most: one lasting longer is
 * found by a range that reaches one of its first 20 years.
 */
export const MONTHS_GOING_ON = 240;

/**
 * The first day of each month after the one an incident began in, up to the month of its last
 * day (at most MONTHS_GOING_ON). With the day it began, these are the days the date-ordered
 * lists hold it at: whatever range it overlaps, one of them lies between the first of the
 * range's first month and the range's end (listedDay, below).
 */
export function monthsGoingOn(facts: EntryFacts): string[] {
  if (facts.occurred === "" || facts.until === "") return [];
  const out: string[] = [];
  let year = Number(facts.occurred.slice(0, 4));
  let month = Number(facts.occurred.slice(5, 7));
  const last = facts.until.slice(0, 7);
  while (out.length < MONTHS_GOING_ON) {
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
    const ym = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}`;
    if (ym > last) break;
    out.push(`${ym}-01`);
  }
  return out;
}

/** The first day of a day's month: a date range's lists are read from there (monthsGoingOn). */
export function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/**
 * The one day, of those an incident is indexed at (the day it began, and monthsGoingOn), that
 * stands for it in a range ending `to`: the newest not after `to` nor after the month of its
 * last day (nor after the last month indexed). An incident is taken from a date-ordered list
 * only at that day, so it is listed once, ordered by the latest month it went on in within the
 * range.
 */
export function listedDay(facts: EntryFacts, to: string): string {
  const last = lastDay(facts);
  let month = monthStart(last < to ? last : to);
  // Days as text (YYYY-MM-DD) compare as dates do; Math.max would make them numbers.
  if (month <= facts.occurred) return facts.occurred;
  // Past the months indexed (MONTHS_GOING_ON), the last of them stands for the rest.
  const indexed = lastMonthIndexed(facts.occurred);
  if (month > indexed) month = indexed;
  return month;
}

/** The first day of the last month monthsGoingOn indexes an incident that began on `occurred` at, at most. */
function lastMonthIndexed(occurred: string): string {
  const months = Number(occurred.slice(0, 4)) * 12 + Number(occurred.slice(5, 7)) - 1 + MONTHS_GOING_ON;
  return `${String(Math.floor(months / 12)).padStart(4, "0")}-${String((months % 12) + 1).padStart(2, "0")}-01`;
}

/** A box on the map: west, south, east, north, in degrees. */
export interface Bbox {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
}

/** The filters every index entry can be checked against without reading its incident. */
export interface EntryFilter {
  from?: string;
  to?: string;
  bbox?: Bbox;
  kind?: string;
  country?: string;
  contested?: boolean;
}

export interface EntryFacts {
  occurred: string;
  until: string;
  lat: number | null;
  lon: number | null;
  kind: string;
  country: string;
  contested: boolean;
}

/**
 * Whether the incident went on at some day of the filter's range: it began on or before `to`
 * and its last day (`until`, else the day it began) is on or after `from`.
 */
export function passes(facts: EntryFacts, filter: EntryFilter): boolean {
  if (filter.from !== undefined && (facts.occurred === "" || lastDay(facts) < filter.from)) return false;
  if (filter.to !== undefined && (facts.occurred === "" || facts.occurred > filter.to)) return false;
  if (filter.kind !== undefined && facts.kind !== filter.kind) return false;
  if (filter.country !== undefined && facts.country !== filter.country) return false;
  if (filter.contested !== undefined && facts.contested !== filter.contested) return false;
  if (filter.bbox) {
    const { lat, lon } = facts;
    const b = filter.bbox;
    if (lat === null || lon === null) return false;
    if (lat < b.minLat || lat > b.maxLat || lon < b.minLon || lon > b.maxLon) return false;
  }
  return true;
}

/**
 * Grid cells covering a box, at the finest of 1°, 10° and 45° that needs at most 32 cells
 * (45° cells cover the world in 32).
 */
export function cellsCovering(b: Bbox): { level: number; cells: string[] } {
  for (const size of [1, 10, 45]) {
    // A point on the north pole or the antimeridian lies in the cell below it (cellsOf), so a
    // box's edge there is read in that cell too.
    const lat0 = Math.floor(Math.min(b.minLat, 89.999999) / size);
    const lat1 = Math.floor(Math.min(b.maxLat, 89.999999) / size);
    const lon0 = Math.floor(Math.min(b.minLon, 179.999999) / size);
    const lon1 = Math.floor(Math.min(b.maxLon, 179.999999) / size);
    const count = (lat1 - lat0 + 1) * (lon1 - lon0 + 1);
    if (count <= 32 || size === 45) {
      const cells: string[] = [];
      for (let y = lat0; y <= lat1; y += 1) for (let x = lon0; x <= lon1; x += 1) cells.push(`${y}:${x}`);
      return { level: size, cells };
    }
  }
  return { level: 45, cells: [] };
}

/** The cell of a point at each level (the index writes one entry per level). */
export function cellsOf(lat: number, lon: number): { level: number; cell: string }[] {
  return [1, 10, 45].map((size) => ({
    level: size,
    cell: `${Math.floor(Math.min(lat, 89.999999) / size)}:${Math.floor(Math.min(lon, 179.999999) / size)}`,
  }));
}
