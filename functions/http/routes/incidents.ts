import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { type Context, Hono } from "hono";
import { GRADES, type Grade, KIND_SLUG_PATTERN, KIND_SLUG_RULE } from "../../../events/schemas.js";
import { reachesRecorded } from "../../../events/stored-event.js";
import type { Summary } from "../../../events/summarize.js";
import { MalformedRequestError, NotFoundError } from "../../errors.js";
import type { SearchIndex } from "../../finding/search-index.js";
import type { IncidentReader, SummaryQuery } from "../../incident-reader.js";
import type { EventStore } from "../../store/event-store.js";
import { decodeCursor, encodeCursor, listKeyAfter } from "../../store/list-cursor.js";
import type { ListPage } from "../../store/view-listing.js";
import type { ViewStore } from "../../store/view-store.js";
import { countWithin, LISTING_PAGE_BYTES } from "../answer-budget.js";
import { FINDING_PARAMS, findingParams, hasFinding } from "../finding-params.js";
import {
  acceptQuery,
  boolQuery,
  gradeOf,
  incidentToRead,
  instantQuery,
  intQuery,
  stringQuery,
} from "../params.js";
import { searchIncidents } from "./finding.js";

export interface IncidentRoutesDeps {
  events: EventStore;
  reader: IncidentReader;
  /** Where a passed full check is recorded, for the incident page's integrity badge. */
  views?: ViewStore;
  /** The finding index: q, from, to, source and bbox on the listing. */
  finding?: SearchIndex;
}

const MAX_VERSION = Number.MAX_SAFE_INTEGER;

/** Reads: the summary (now, then, or at least as new as a write), the listing, and /verify. */
export function incidentRoutes(deps: IncidentRoutesDeps) {
  const { events, reader, views } = deps;
  const app = new Hono();

  app.get(
    "/incidents",
    acceptQuery("kind", "country", "contested", "grade", "limit", "cursor", ...FINDING_PARAMS),
    async (c) => {
      const limit = intQuery(c, "limit", { min: 1, max: 100, fallback: 20 }) as number;
      const kind = stringQuery(c, "kind", KIND_SLUG_PATTERN, KIND_SLUG_RULE);
      const country = stringQuery(
        c,
        "country",
        /^[A-Za-z]{2}$/,
        "must be an ISO 3166-1 alpha-2 code, e.g. UA",
      );
      const contested = boolQuery(c, "contested");
      const grade = gradeQuery(c);
      // Words, dates, a source or a box: the finding index answers (functions/finding).
      const finding = findingParams(c);
      if (hasFinding(finding) && deps.finding) {
        return c.json(
          await searchIncidents(
            { finding: deps.finding, reader },
            {
              ...finding,
              limit,
              ...(kind === undefined ? {} : { kind }),
              ...(country === undefined ? {} : { country: country.toUpperCase() }),
              ...(contested === undefined ? {} : { contested }),
              ...(grade === undefined ? {} : { grade }),
              ...(c.req.query("cursor") === undefined ? {} : { cursor: c.req.query("cursor") as string }),
            },
          ),
        );
      }
      const page = await reader.list(
        {
          limit,
          ...(kind === undefined ? {} : { kind }),
          ...(country === undefined ? {} : { country: country.toUpperCase() }),
          ...(contested === undefined ? {} : { contested }),
          ...(c.req.query("cursor") === undefined
            ? {}
            : { cursor: cursorQuery(c.req.query("cursor") as string) }),
        },
        grade === undefined ? {} : { grade },
      );
      const answer = listingWithin(page, LISTING_PAGE_BYTES);
      return c.json({ items: answer.items, nextCursor: answer.next ? encodeCursor(answer.next) : null });
    },
  );

  app.get("/incidents/:incidentId", acceptQuery("asOf", "version", "minVersion"), async (c) => {
    const incidentId = incidentToRead(c);
    const version = intQuery(c, "version", { min: 1, max: MAX_VERSION });
    const asOf = instantQuery(c, "asOf");
    const minVersion = intQuery(c, "minVersion", { min: 0, max: MAX_VERSION });
    const given = [version, asOf, minVersion].filter((v) => v !== undefined).length;
    if (given > 1) {
      const message = "give at most one of version, asOf and minVersion";
      throw new MalformedRequestError(message, [{ path: "query", message }]);
    }
    const query: SummaryQuery =
      version !== undefined
        ? { at: "version", version }
        : asOf !== undefined
          ? { at: "asOf", asOf }
          : { at: "current", ...(minVersion === undefined ? {} : { minVersion }) };
    const found = await reader.summaryJson(incidentId, query);
    if (!found) {
      // Say where the incident is, so "not yet at that version" is not mistaken for "no such incident".
      const head = (await events.readHead(incidentId)).version;
      throw new NotFoundError(
        notFoundDetail(incidentId, query),
        undefined,
        head > 0 ? { currentVersion: head } : {},
      );
    }
    const etag = `"${found.version}"`;
    c.header("ETag", etag);
    if (query.at === "current" && c.req.header("if-none-match") === etag) return c.body(null, 304);
    return c.body(found.json, 200, { "Content-Type": "application/json" });
  });

  app.get("/incidents/:incidentId/verify", acceptQuery(), async (c) => {
    const incidentId = incidentToRead(c);
    // The view first: a chain read after it holds every version the view was projected from,
    // whatever is appended meanwhile, so only a chain that lost events ends before it.
    const projected = await views?.getSummaryJson(incidentId);
    const chain = await events.verify(incidentId);
    const result = { incidentId, ...reachesRecorded(chain, projected?.version), checked: chain.checked };
    if (result.ok && result.version === 0) throw new NotFoundError(`no incident ${incidentId}`);
    const checkedAt = new Date().toISOString();
    if (result.ok)
      await views?.saveCheck(incidentId, { version: result.version, headHash: result.headHash, checkedAt });
    // Recorded at the head's version, so it stands (on the page's badge) until a full check of
    // that head or a later one passes.
    else
      await views?.saveCheck(incidentId, {
        version: Math.max((await events.readHead(incidentId)).version, result.version),
        headHash: "-",
        checkedAt,
        ok: false,
        firstBadVersion: result.firstBadVersion,
        reason: result.reason,
      });
    return c.json(result);
  });

  return app;
}

function notFoundDetail(incidentId: string, query: SummaryQuery): string {
  switch (query.at) {
    case "version":
      return `incident ${incidentId} has no version ${query.version}`;
    case "asOf":
      return `nothing was recorded about incident ${incidentId} by ${query.asOf}`;
    case "current":
      return query.minVersion
        ? `incident ${incidentId} has not reached version ${query.minVersion}`
        : `no incident ${incidentId}`;
  }
}

/** `grade`: one of the ledger's grades (CONTRACT.md "Coding for research"). */
function gradeQuery(c: Context): Grade | undefined {
  const grade = c.req.query("grade");
  if (grade === undefined) return undefined;
  const known = gradeOf(grade);
  if (known) return known;
  const message = `must be one of ${GRADES.join(", ")}`;
  throw new MalformedRequestError(`grade ${message}`, [{ path: "query.grade", message }]);
}

function cursorQuery(cursor: string): Record<string, AttributeValue> {
  const key = decodeCursor(cursor);
  if (key) return key;
  const message = "is not a cursor this archive gave out; pass nextCursor from the previous page unchanged";
  throw new MalformedRequestError(`cursor ${message}`, [{ path: "query.cursor", message }]);
}

/** A listing page as one answer holds it: the first summaries within `max` bytes of JSON, going on after the last kept. */
function listingWithin(page: { items: Summary[]; next: ListPage["next"] }, max: number) {
  const kept = countWithin(page.items, max);
  if (kept === page.items.length) return page;
  const last = page.items[kept - 1] as Summary;
  return { items: page.items.slice(0, kept), next: listKeyAfter(last.incidentId, last.lastRecordedAt) };
}
