import { createHash } from "node:crypto";
import type { Context } from "hono";
import { isCalendarDay } from "../../events/calendar.js";
import type { Bbox } from "../../events/finding/search-doc.js";
import { MalformedRequestError } from "../errors.js";
import type { SearchCursor } from "../finding/search-index.js";

/** The query parameters of finding, on the API and the pages alike. */
export const FINDING_PARAMS = ["q", "from", "to", "source", "bbox"] as const;
export const MAX_Q = 500;

export interface FindingParams {
  q?: string;
  from?: string;
  to?: string;
  source?: string;
  bbox?: Bbox;
}

function bad(name: string, message: string): MalformedRequestError {
  return new MalformedRequestError(`query parameter ${name} ${message}`, [
    { path: `query.${name}`, message },
  ]);
}

type Get = (name: string) => string | undefined;

function day(get: Get, name: string): string | undefined {
  const raw = get(name);
  if (raw === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (!m || !isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw bad(name, "must be a real day as an ISO 8601 date, e.g. 2022-04-08");
  }
  return raw;
}

/** Parses q, from, to, source and bbox; each bad one is a 400 naming it. */
export function findingParams(c: Context): FindingParams {
  return findingParamsFrom((name) => c.req.query(name));
}

export function findingParamsFrom(get: Get): FindingParams {
  const out: FindingParams = {};
  const q = get("q");
  if (q !== undefined) {
    if (q.trim() === "") throw bad("q", "must not be empty: give the words to search for");
    if (q.length > MAX_Q) throw bad("q", `must be at most ${MAX_Q} characters`);
    out.q = q;
  }
  const from = day(get, "from");
  const to = day(get, "to");
  if (from !== undefined && to !== undefined && from > to) throw bad("from", "must not be after to");
  if (from !== undefined) out.from = from;
  if (to !== undefined) out.to = to;
  const source = get("source");
  if (source !== undefined) {
    if (source.trim() === "" || source.length > 300)
      throw bad("source", "must be a source or speaker name of 1–300 characters");
    out.source = source;
  }
  const bbox = get("bbox");
  if (bbox !== undefined) {
    const parts = bbox.split(",");
    const numbers = parts.map((p) => (/^-?\d+(\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
    if (parts.length !== 4 || numbers.some((n) => Number.isNaN(n))) {
      throw bad("bbox", "must be minLon,minLat,maxLon,maxLat in degrees, e.g. 22,44,41,53");
    }
    const [minLon, minLat, maxLon, maxLat] = numbers as [number, number, number, number];
    if (minLon < -180 || maxLon > 180 || minLat < -90 || maxLat > 90) {
      throw bad("bbox", "must lie within longitudes -180..180 and latitudes -90..90");
    }
    if (minLon > maxLon || minLat > maxLat) throw bad("bbox", "must give each minimum at most its maximum");
    out.bbox = { minLon, minLat, maxLon, maxLat };
  }
  return out;
}

export function hasFinding(p: FindingParams): boolean {
  return (
    p.q !== undefined ||
    p.from !== undefined ||
    p.to !== undefined ||
    p.source !== undefined ||
    p.bbox !== undefined
  );
}

/**
 * A search cursor as a client holds it: where the walk goes on, and the query it walks (`s`, a
 * digest of it), so a cursor passed with another query is refused, not read as a place in it.
 */
export function encodeSearchCursor(cursor: SearchCursor, scope: string): string {
  return `f.${Buffer.from(JSON.stringify({ ...cursor, s: scope })).toString("base64url")}`;
}

/** A search cursor back, only in the shape this archive gives out and of this query's `scope`; null otherwise. */
export function decodeSearchCursor(text: string, scope: string): SearchCursor | null {
  if (!text.startsWith("f.")) return null;
  try {
    const { s, ...value } = JSON.parse(Buffer.from(text.slice(2), "base64url").toString("utf8")) as Record<
      string,
      unknown
    >;
    if (s !== scope || Object.keys(value).length !== 1) return null;
    if (Number.isInteger(value.o) && (value.o as number) >= 0 && (value.o as number) <= 100_000)
      return { o: value.o as number };
    if (typeof value.k === "string" && value.k.length <= 400) return { k: value.k };
    return null;
  } catch {
    return null;
  }
}

/** The digest a search's cursors carry: of everything that decides its matches, not of its page size. */
export function searchScope(query: Record<string, unknown>): string {
  const decides = Object.entries(query)
    .filter(([name, value]) => name !== "limit" && name !== "cursor" && value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash("sha256").update(JSON.stringify(decides)).digest("base64url").slice(0, 12);
}
