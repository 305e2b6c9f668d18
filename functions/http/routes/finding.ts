import { Hono } from "hono";
import { figureAssessments, type SourceRecord, sourceRecord } from "../../../events/finding/source-record.js";
import type { Grade } from "../../../events/schemas.js";
import { sourceKeysOf } from "../../../events/source-key.js";
import { effectiveGrade, type Summary } from "../../../events/summarize.js";
import { MalformedRequestError, NotFoundError } from "../../errors.js";
import type { SearchCursor, SearchIndex, SearchPage, SearchQuery } from "../../finding/search-index.js";
import { GRADE_PAGES, type IncidentReader } from "../../incident-reader.js";
import { countWithin, LISTING_PAGE_BYTES } from "../answer-budget.js";
import {
  decodeSearchCursor,
  encodeSearchCursor,
  type FindingParams,
  searchScope,
} from "../finding-params.js";
import { acceptQuery, intQuery } from "../params.js";

export interface FindingDeps {
  finding: SearchIndex;
  reader: IncidentReader;
}

/** The current summaries of a page's incidents, read in parallel (a page holds at most 100). */
export function summariesOf(reader: IncidentReader) {
  return async (ids: string[]): Promise<Map<string, Summary>> => {
    const found = await Promise.all(ids.map((id) => reader.summary(id, { at: "current" })));
    const out = new Map<string, Summary>();
    found.forEach((s, i) => {
      if (s) out.set(ids[i] as string, s);
    });
    return out;
  };
}

function cursorOf(text: string | undefined, scope: string) {
  if (text === undefined) return undefined;
  const cursor = decodeSearchCursor(text, scope);
  if (cursor) return cursor;
  const message =
    "is not a cursor this archive gave out for this query; pass nextCursor from the previous page unchanged, with the same query";
  throw new MalformedRequestError(`cursor ${message}`, [{ path: "query.cursor", message }]);
}

/** A page of the finding index's matches, whole: each with where a page cut after it goes on from. */
export interface FoundIncidents {
  items: Summary[];
  after: SearchCursor[];
  next: SearchCursor | null;
  /** The query's digest its cursors carry (encodeSearchCursor). */
  scope: string;
}

/** q, from, to, source or bbox: one bounded page of the finding index, at most `limit` matches. */
export async function findIncidents(
  deps: FindingDeps,
  params: FindingParams & {
    kind?: string;
    country?: string;
    contested?: boolean;
    /** Only incidents of this grade, given or suggested (as the listing's `grade`). */
    grade?: Grade;
    limit: number;
    cursor?: string;
  },
): Promise<FoundIncidents> {
  // The index is written as each view is: a search waits, as a listing does, for the
  // projections of the writes before it (none to wait for in AWS), so a writer finds what it wrote.
  await deps.reader.projected();
  const ask = (limit: number, cursor: SearchCursor | undefined) =>
    deps.finding.search(searchQuery(params, limit, cursor), summariesOf(deps.reader));
  const { grade } = params;
  // The grade is a fact of the summary, not of the index entries: with it, pages of matches are
  // read and filtered here, at most GRADE_PAGES of them (a bounded cost per request, as the
  // listing's grade filter), so a page may come back short with a cursor to go on from.
  const { limit: _limit, cursor: _cursor, ...decides } = params;
  const scope = searchScope(decides);
  const found: FoundIncidents = { items: [], after: [], next: cursorOf(params.cursor, scope) ?? null, scope };
  for (let round = 0; round < (grade === undefined ? 1 : GRADE_PAGES); round++) {
    const page: SearchPage = await ask(params.limit - found.items.length, found.next ?? undefined);
    page.items.forEach((summary, i) => {
      if (grade !== undefined && effectiveGrade(summary) !== grade) return;
      found.items.push(summary);
      found.after.push(page.after[i] as SearchCursor);
    });
    found.next = page.next;
    if (!found.next || found.items.length >= params.limit) break;
  }
  return found;
}

/**
 * What an answer made of a page of matches (`answers[i]` of `found.items[i]`) holds: the first
 * of them within LISTING_PAGE_BYTES of JSON, and the cursor that goes on after the last kept.
 */
export function answerWithin<T>(
  found: FoundIncidents,
  answers: T[],
): { items: T[]; nextCursor: string | null } {
  const kept = countWithin(answers, LISTING_PAGE_BYTES);
  const next = kept < answers.length ? (found.after[kept - 1] as SearchCursor) : found.next;
  return { items: answers.slice(0, kept), nextCursor: next ? encodeSearchCursor(next, found.scope) : null };
}

/** `GET /incidents` with q, from, to, source or bbox: a page of matches, cut to the listing's bytes. */
export async function searchIncidents(
  deps: FindingDeps,
  params: Parameters<typeof findIncidents>[1],
): Promise<{ items: Summary[]; nextCursor: string | null }> {
  const found = await findIncidents(deps, params);
  return answerWithin(found, found.items);
}

function searchQuery(
  params: FindingParams & { kind?: string; country?: string; contested?: boolean },
  limit: number,
  cursor: SearchCursor | undefined,
): SearchQuery {
  return {
    limit,
    ...(params.q !== undefined ? { q: params.q } : {}),
    ...(params.from !== undefined ? { from: params.from } : {}),
    ...(params.to !== undefined ? { to: params.to } : {}),
    ...(params.source !== undefined ? { sources: sourceKeysOf(params.source) } : {}),
    ...(params.bbox !== undefined ? { bbox: params.bbox } : {}),
    ...(params.kind !== undefined ? { kind: params.kind } : {}),
    ...(params.country !== undefined ? { country: params.country } : {}),
    ...(params.contested !== undefined ? { contested: params.contested } : {}),
    ...(cursor ? { cursor } : {}),
  };
}

export interface SourcePage {
  name: string;
  items: SourceRecord[];
  nextCursor: string | null;
}

/** Every incident naming a source or speaker, newest occurrence first, with what it said there. */
export async function sourcePage(
  deps: FindingDeps,
  name: string,
  limit: number,
  cursor?: string,
): Promise<SourcePage> {
  const keys = new Set(sourceKeysOf(name));
  const found = await findIncidents(deps, {
    source: name,
    limit,
    ...(cursor !== undefined ? { cursor } : {}),
  });
  if (found.items.length === 0 && cursor === undefined) {
    throw new NotFoundError(
      `no incident names the source or speaker ${JSON.stringify(name.slice(0, 300))} (a name is matched with its capitals as written; GET /incidents?q= finds the words of a name in any case)`,
    );
  }
  // The assessments of figures are in the fold state, not the summary: the view of an incident
  // with figures is read once more (the state its summary was made from), for the verdicts on
  // this source's figures and those it gave of others'.
  const records = await Promise.all(
    found.items.map(async (summary) => {
      if (Object.keys(summary.casualties ?? {}).length === 0) return sourceRecord(summary, keys);
      const state = await deps.reader.projectedState(summary.incidentId);
      return sourceRecord(summary, keys, state ? figureAssessments(state) : undefined);
    }),
  );
  // Cut by what the answer holds (this source's rows), not by the summaries they were read from.
  return { name, ...answerWithin(found, records) };
}

export function findingRoutes(deps: FindingDeps): Hono {
  const app = new Hono();
  app.get("/sources/:name", acceptQuery("limit", "cursor"), async (c) => {
    const name = c.req.param("name");
    if (name.trim() === "" || name.length > 300) {
      const message = "must be a source or speaker name of 1–300 characters";
      throw new MalformedRequestError(`the source name ${message}`, [{ path: "path.name", message }]);
    }
    const limit = intQuery(c, "limit", { min: 1, max: 100, fallback: 20 }) as number;
    return c.json(await sourcePage(deps, name, limit, c.req.query("cursor")));
  });
  return app;
}
