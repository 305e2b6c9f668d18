import { GRADES, KIND_SLUG_PATTERN, MAX_BATCH } from "../../events/schemas.js";
import * as deskApi from "./openapi-desk.js";
import * as evidenceApi from "./openapi-evidence.js";
import * as feedApi from "./openapi-feed.js";
import * as findingApi from "./openapi-finding.js";
import * as logApi from "./openapi-log.js";
import * as peopleApi from "./openapi-people.js";
import { coreSchemas, type Json, ref } from "./openapi-schemas.js";

/**
 * The OpenAPI 3.1 document: a pure function of the zod schemas and of the parts handed to it,
 * so it can be served as built here or generated once at build time and shipped as JSON.
 *
 * Other route families (the transparency log, the feed, exports, releases) bring their own
 * part — `{ paths, schemas }` — and are plugged in with one line each, in `apiParts` below or
 * by whoever calls `openApiDocument`.
 */
export interface ApiPart {
  paths: Record<string, Json>;
  schemas?: Record<string, Json>;
  /** Tags the part's operations use that the core does not define. */
  tags?: { name: string; description: string }[];
}

export type { Json } from "./openapi-schemas.js";

const MAX_INT = Number.MAX_SAFE_INTEGER;
const PROBLEM = "application/problem+json";

const json = (schema: Json, description: string, extra: Json = {}) => ({
  description,
  ...extra,
  content: { "application/json": { schema } },
});
const problem = (description: string, extra: Json = {}) => ({
  description,
  ...extra,
  content: { [PROBLEM]: { schema: ref("Problem") } },
});
const text = (type: string, description: string) => ({
  description,
  content: { [type]: { schema: { type: "string" } } },
});

const ETAG = {
  description: 'The incident\'s version as a strong tag, e.g. "12".',
  required: true,
  schema: { type: "string", pattern: '^"(0|[1-9][0-9]*)"$' },
};
const LOCATION = {
  description: "The incident's summary: /incidents/{incidentId}.",
  required: true,
  schema: { type: "string", pattern: "^/incidents/[a-z0-9-]{3,96}$" },
};

const incidentPath = (what: string) => ({
  name: "incidentId",
  in: "path",
  required: true,
  description: `The incident: 3–96 characters of a-z, 0-9 and -. ${what}`,
  schema: ref("IncidentId"),
});
const readIncident = incidentPath("An id of any other form is simply not found (404).");
const query = (name: string, schema: Json, description: string) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const limit = (max: number, fallback: number) =>
  query("limit", { type: "integer", minimum: 1, maximum: max, default: fallback }, `Page size, 1–${max}.`);

const UNKNOWN_QUERY =
  "Unknown query parameters are refused (400, naming each as `query.<name>`): a typo never silently widens an answer.";
const PAGE_QUERY =
  "A parameter the page does not know is ignored, where the API refuses it: a link a person shares comes back with a tracker's (`utm_source`) and must still open.";
const badRequest = (what: string) => problem(`${what} ${UNKNOWN_QUERY}`);
const internal = problem("The archive could not answer; nothing was acknowledged.");
const read = { security: [] as unknown[] };

const APPEND_DESCRIPTION = `Body: one EventEnvelope, or \`{ "events": [ … ] }\` with 1–${MAX_BATCH} of them, stored all or nothing (at most 256 KiB).

**If-Match: "N"** appends only if the incident is at version N (\`"0"\`: it must not exist yet); a mismatch is a 409 with \`currentVersion\`. Without it the events go after whatever is current: a race with another writer is retried by the server, never answered 409.

**Editors only** (else 403): \`IncidentRevised\`, \`IncidentGraded\`, \`AttributionAssessed\`, \`IncidentsLinked\`. They are superseded by newer ones, never retracted (a \`ReportRetracted\` naming one is 422). An \`IncidentsLinked\` must name another incident that exists (422), and the same link (other incident and relation) again is refused (422): it is stored once. An opening's \`occurredUntil\` must not be on an earlier day than its start (each day as written), nor before it when both are instants, nor be given without a start (in the data, or the opening's own \`occurredAt\`), and a revision must not leave the incident ending before it starts or without a start, with its current details filling what the revision leaves out (422).

Rules JSON Schema cannot say, checked by the server: \`IncidentOpened\` only as version 1 of an incident and every other type only on an incident that exists (else 409); a \`targetEventId\` must name an event of the same incident (else 422); a range figure's \`min\` must not exceed its \`max\`; no \`eventId\` twice in one batch; text is well-formed Unicode (no lone surrogates) and string lengths are counted in UTF-16 code units; an eventId of the server's own form (\`ev_<32 hex>_<N>\`) is only accepted where it names that very event; a \`VictimsLinked\` names two different entries of \`VictimsRecorded\` events of this incident that are not retracted (else 422), and the latest one on a pair holds; a \`RedactionApplied\` (editors only, else 403) names a stored event of this incident and pointers that hold a disclosure not yet erased (else 422), and is never retracted (a \`ReportRetracted\` naming one is 422); \`data.disclose\` marks only values the event seals (else 422); a private person (\`attributedTo.kind: private\`) needs a \`ref\`; no client sends \`$sealed\` (422). Sealed values are stored as commitments: a batch that would then pass one commit item (DynamoDB's 400 KB) is a 413.

**Retrying.** Give each event a client \`eventId\` (8–64 of A-Z a-z 0-9 _ -): the same eventId posted again with the same content answers the first answer again (200) and stores nothing, however long after and whatever happened in between, so a post whose answer was lost can be retried blindly. A post **without** eventId is not safe to retry blindly: if the answer is lost and the post is repeated, the event is stored twice (with If-Match the retry is refused with 409 instead, and \`GET …/events\` shows whether the first one landed). An eventId is unique across the archive: reusing it with other content or on another incident is a 409. After a crash mid-append, an eventId claimed for another incident stays reserved (409 naming that incident) until that claim is moved, at the latest by that incident's next append.`;

function corePaths(): Record<string, Json> {
  return {
    "/incidents/{incidentId}/events": {
      post: {
        operationId: "appendEvents",
        tags: ["events"],
        summary: "Append one event, or a batch of 1–25 atomically",
        description: APPEND_DESCRIPTION,
        security: [{ bearer: [] }],
        parameters: [
          incidentPath("Any other form is an invalid event (422)."),
          {
            name: "If-Match",
            in: "header",
            required: false,
            description:
              'Append only if the incident is at this version: a strong tag "N" ("0": the incident must not exist yet). A bare N is taken too.',
            schema: {
              type: "string",
              pattern: '^(?:"(?:0|[1-9][0-9]{0,11})"|0|[1-9][0-9]{0,11})$',
              example: '"3"',
            },
          },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": { schema: { oneOf: [ref("EventEnvelope"), ref("EventBatch")] } },
          },
        },
        responses: {
          "201": json(ref("AppendResult"), "Stored.", {
            headers: { ETag: ETAG, Location: LOCATION },
            links: appendLinks,
          }),
          "200": json(
            ref("AppendResult"),
            "Every eventId was already stored with the same content: the first answer again; nothing new stored.",
            { headers: { ETag: ETAG, Location: LOCATION }, links: appendLinks },
          ),
          "400": problem("The body is not JSON or not UTF-8, or If-Match is malformed; nothing stored."),
          "401": problem("Missing or wrong credentials; nothing stored.", {
            headers: {
              "WWW-Authenticate": { description: "Bearer", required: true, schema: { type: "string" } },
            },
          }),
          "403": problem(
            "The caller lacks the role an event type needs (editors: `RedactionApplied`, `IncidentRevised`, `IncidentGraded`, `AttributionAssessed`, `IncidentsLinked`); nothing stored. Asked of the types the body names before the events are validated, so it comes before a 422.",
          ),
          "409": problem(
            "If-Match mismatch (with `currentVersion`), IncidentOpened on an existing incident or another type on a missing one, or an eventId taken by other content or another incident; nothing stored.",
          ),
          "413": problem(
            "Body over 256 KiB, or events that would not fit one commit (DynamoDB's 400 KB item) once their sealed values are commitments; nothing stored.",
          ),
          "422": problem(
            "Valid JSON, invalid event: each failing field is listed in `errors`; nothing stored.",
          ),
          "500": internal,
          "503": problem("Too many writers kept winning the race for this incident; nothing stored. Retry."),
        },
      },
      get: {
        operationId: "listEvents",
        tags: ["events"],
        summary: "The stored events in version order",
        description: `Pages of events; ask again with \`after\` = \`next\` until \`next\` is null. ${UNKNOWN_QUERY}`,
        ...read,
        parameters: [
          readIncident,
          query(
            "after",
            { type: "integer", minimum: 0, maximum: MAX_INT, default: 0 },
            "Only events with a version above this.",
          ),
          limit(500, 100),
        ],
        responses: {
          "200": json(ref("EventPage"), "A page of events."),
          "400": badRequest("A query parameter is malformed or out of range."),
          "404": problem("Unknown incident."),
          "500": internal,
        },
      },
    },
    "/incidents/{incidentId}": {
      get: {
        operationId: "getIncident",
        tags: ["incidents"],
        summary: "The incident's summary, now or as it stood then",
        description: `At most one of \`asOf\`, \`version\` and \`minVersion\` (more is a 400). Without them: the current summary, with \`ETag: "N"\`; \`If-None-Match\` with that tag answers 304. \`links\` also lists the links other incidents posted naming this one (read beside the view; they are the other incident's events, so they do not change this incident's version or ETag, and a past view lists those recorded by its point). ${UNKNOWN_QUERY}`,
        ...read,
        parameters: [
          readIncident,
          query(
            "asOf",
            {
              type: "string",
              format: "date-time",
              pattern:
                "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:[Zz]|[+-]\\d{2}:\\d{2})$",
            },
            "What was known at this instant (by recordedAt), with its zone, e.g. 2022-04-08T12:00:00Z. Not with version or minVersion.",
          ),
          query(
            "version",
            { type: "integer", minimum: 1, maximum: MAX_INT },
            "The summary as it stood at this version. Not with asOf or minVersion.",
          ),
          query(
            "minVersion",
            { type: "integer", minimum: 0, maximum: MAX_INT },
            "An answer that reflects at least this version, even while the stored view lags (read your own write). Not with asOf or version.",
          ),
          {
            name: "If-None-Match",
            in: "header",
            required: false,
            description: "The ETag of a copy you hold: 304 if it is still current.",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": json(ref("Summary"), "The summary.", { headers: { ETag: ETAG } }),
          "304": { description: "If-None-Match named the current version.", headers: { ETag: ETAG } },
          "400": badRequest(
            "A query parameter is malformed, or more than one of asOf, version and minVersion.",
          ),
          "404": problem("Unknown incident, or it had not reached that point (then with `currentVersion`)."),
          "500": internal,
        },
      },
    },
    "/incidents": {
      get: {
        operationId: "listIncidents",
        tags: ["incidents"],
        summary: "Summaries, newest activity first",
        description: `Filters combine (all must hold). Ask again with \`cursor\` = \`nextCursor\` until it is null. ${findingApi.LISTING_NOTE} ${UNKNOWN_QUERY}`,
        ...read,
        parameters: [
          query(
            "kind",
            // The very rule the route checks (and IncidentOpened's kind), so the two cannot drift.
            { type: "string", pattern: KIND_SLUG_PATTERN.source },
            "Only this kind, e.g. missile-strike.",
          ),
          query(
            "country",
            { type: "string", pattern: "^[A-Za-z]{2}$" },
            "Only this ISO 3166-1 alpha-2 country.",
          ),
          query(
            "contested",
            { type: "boolean" },
            "Only incidents with (true) or without (false) a live denial.",
          ),
          query(
            "grade",
            { type: "string", enum: [...GRADES] },
            "Only incidents of this grade: the one an editor gave, else the one the ledger suggests. Read from at most 5 index pages per request: a page may come back short (even empty) with a `nextCursor`.",
          ),
          limit(100, 20),
          query(
            "cursor",
            { type: "string" },
            "`nextCursor` of the previous page, unchanged, with the same filters and words (another page size is fine).",
          ),
          ...findingApi.listingParameters,
        ],
        responses: {
          "200": json(ref("SummaryPage"), "A page of summaries."),
          "400": badRequest(
            "A query parameter is malformed, or the cursor is not one this archive gave out for this query.",
          ),
          "500": internal,
        },
      },
    },
    ...incidentListPaths(),
    "/incidents/{incidentId}/verify": {
      get: {
        operationId: "verifyIncident",
        tags: ["integrity"],
        summary: "Re-read the stored items and re-check the hash chain",
        description: `No cache: every stored item is read again and every hash recomputed. ${UNKNOWN_QUERY}`,
        ...read,
        parameters: [readIncident],
        responses: {
          "200": json(ref("ChainCheck"), "ok with the head hash, or the first version that fails."),
          "400": badRequest("A query parameter was given."),
          "404": problem("Unknown incident."),
          "500": internal,
        },
      },
    },
    "/health": {
      get: {
        operationId: "getHealth",
        tags: ["meta"],
        summary: "Whether the store answers",
        description:
          "One read of the store; 503 when it does not answer within 3 s (refused, failing or hung). For load balancers and monitors.",
        ...read,
        responses: {
          "200": json(ref("Health"), "The store answers."),
          "400": badRequest("A query parameter was given."),
          "503": json(ref("Health"), "The store does not answer."),
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        tags: ["meta"],
        summary: "This document",
        description: "The OpenAPI 3.1 document, built from the same schemas the server validates with.",
        ...read,
        responses: {
          "200": json({ type: "object" }, "The OpenAPI 3.1 document."),
          "400": badRequest("A query parameter was given."),
        },
      },
    },
    "/docs": {
      get: {
        operationId: "getDocsPage",
        tags: ["meta"],
        summary: "This document as a page",
        description:
          "Server-rendered HTML, no script: routes, parameters, answers, problem types and schemas.",
        ...read,
        responses: {
          "200": text("text/html", "The API, rendered."),
          "400": badRequest("A query parameter was given."),
        },
      },
    },
    "/codebook": {
      get: {
        operationId: "getCodebookPage",
        tags: ["meta"],
        summary: "The codebook, as a page",
        description:
          "Server-rendered HTML, no script: the codebook of the exports (every column of incidents.csv, ucdp-ged.csv and acled.csv, events.ndjson) and the coding rules behind them, as this archive applies them. Its sections keep their anchors (`/codebook#grades`).",
        ...read,
        responses: {
          "200": text("text/html", "The codebook, rendered."),
          "400": badRequest("A query parameter was given."),
        },
      },
    },
    "/robots.txt": {
      get: {
        operationId: "getRobotsTxt",
        tags: ["meta"],
        summary: "Crawling rules",
        description: "Crawlers may read the pages and /docs; the JSON API and the exports are for programs.",
        ...read,
        responses: {
          "200": text("text/plain", "The pages may be crawled; the API and exports are not."),
          "400": badRequest("A query parameter was given."),
        },
      },
    },
    "/favicon.ico": {
      get: {
        operationId: "getFavicon",
        tags: ["meta"],
        summary: "The site icon (SVG)",
        description: "Where browsers look for an icon unasked; the pages themselves link nothing.",
        ...read,
        responses: {
          "200": text("image/svg+xml", "An SVG icon."),
          "400": badRequest("A query parameter was given."),
        },
      },
    },
    "/": {
      get: {
        operationId: "getDashboard",
        tags: ["pages"],
        summary: "The dashboard: incidents, newest activity first (HTML)",
        description:
          "For people: the same data as GET /incidents, with a filter form. Bad filters answer a page that says what to fix.",
        ...read,
        parameters: [
          ...findingApi.pageFilters,
          query("cursor", { type: "string" }, "The next page's cursor."),
        ],
        responses: {
          "200": text("text/html", "The page."),
          "400": {
            description: `A page that says which filter to fix. ${PAGE_QUERY}`,
            content: { "text/html": { schema: { type: "string" } }, [PROBLEM]: { schema: ref("Problem") } },
          },
        },
      },
    },
    "/view/{incidentId}": {
      get: {
        operationId: "getIncidentPage",
        tags: ["pages"],
        summary: "One incident's page (HTML), now or as known at a moment",
        description:
          "For people: figures by source, denials and assessments, statements, the timeline and a fresh check of the hash chain.",
        ...read,
        parameters: [
          { ...readIncident, schema: { type: "string" } },
          query(
            "asOf",
            {
              type: "string",
              pattern:
                "^\\s*(?:\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:[Zz]|[+-]\\d{2}:\\d{2})?)?\\s*$",
            },
            "As known at this instant: a datetime-local value (read as UTC) or an ISO 8601 time with its zone; an impossible date (2022-02-31) is a 400. Not with version.",
          ),
          query(
            "version",
            { type: "string", pattern: "^\\s*(?:[1-9][0-9]{0,14})?\\s*$" },
            "As known at this version. Not with asOf.",
          ),
          query(
            "before",
            { type: "string", pattern: "^\\s*(?:[2-9]|[1-9][0-9]{1,14})?\\s*$" },
            "The timeline page of the events before this version.",
          ),
          query(
            "recorded",
            { type: "string" },
            "The eventId a desk form just stored (where the desk leads after it): the page says so at its top when its timeline shows that event; otherwise nothing.",
          ),
        ],
        responses: {
          "200": text("text/html", "The page."),
          "400": {
            description: `A page that says which moment cannot be read. ${PAGE_QUERY}`,
            content: { "text/html": { schema: { type: "string" } }, [PROBLEM]: { schema: ref("Problem") } },
          },
          "401": {
            description:
              "An Authorization header that names no user (a restricted-reader's page is `Cache-Control: private, no-store`).",
            content: { [PROBLEM]: { schema: ref("Problem") } },
          },
          "404": text("text/html", "A page that says there is no such incident (at that moment)."),
        },
      },
    },
  };
}

const CURSOR = query("cursor", { type: "string" }, "`nextCursor` of the previous page, unchanged.");

/** The lists a summary bounds to 100 entries (and 256 KB), whole, a page at a time. */
function incidentListPaths(): Record<string, Json> {
  const list = (operationId: string, summary: string, schema: string, what: string, extra: Json[] = []) => ({
    get: {
      operationId,
      tags: ["incidents"],
      summary,
      description: `${what} Ask again with \`cursor\` = \`nextCursor\` until it is null. ${UNKNOWN_QUERY}`,
      ...read,
      parameters: [readIncident, ...extra, limit(100, 100), CURSOR],
      responses: {
        "200": json(ref(schema), "A page."),
        "400": badRequest("A query parameter is malformed, or the cursor is not one this archive gave out."),
        "404": problem("Unknown incident (or category)."),
        "500": internal,
      },
    },
  });
  return {
    "/incidents/{incidentId}/casualties/{category}/sources": list(
      "listCategorySources",
      "Every live source of one casualty category",
      "CategorySourcePage",
      "Each live source's latest report of the category, the most recent first: the whole of the summary's `bySource`.",
      [
        {
          name: "category",
          in: "path",
          required: true,
          description: "A casualty category of the incident.",
          schema: { type: "string", pattern: "^[a-z][A-Za-z]{0,63}$" },
        },
      ],
    ),
    "/incidents/{incidentId}/denials": list(
      "listDenials",
      "Every live denial",
      "DenialPage",
      "The live denials in version order, with their status: the whole of the summary's `denials`.",
    ),
    "/incidents/{incidentId}/retractions": list(
      "listRetractions",
      "Every retracted event id",
      "RetractionPage",
      "The ids of retracted events, in the order retracted: the whole of the summary's `retractedEventIds`.",
    ),
    "/incidents/{incidentId}/statements": list(
      "listStatements",
      "Every live statement, newest first",
      "StatementPage",
      "Live statements, newest first. Each request reads a bounded stretch of the events, so a page may hold fewer than `limit` and still have a `nextCursor`.",
    ),
    "/incidents/{incidentId}/links": list(
      "listLinks",
      "Every current link, both directions, the most recent first",
      "LinkPage",
      "Each other incident's current link to or from this one (a later link between the same two replaces the earlier), the most recently recorded first: the whole of the summary's `links.items`. A link posted on another incident appears once that incident is projected.",
    ),
    "/incidents/{incidentId}/attributions": list(
      "listAttributions",
      "Every perpetrator's current assessment, the most recent first",
      "AttributionPage",
      "Each perpetrator's latest AttributionAssessed (a later assessment of the same perpetrator, by actorId or else by name, replaces the earlier), the most recently recorded first: the whole of the summary's `attributions.latest`.",
    ),
    "/incidents/{incidentId}/evidence": list(
      "listEvidence",
      "Every capture, newest first",
      "EvidencePage",
      "Every EvidenceCaptured of the incident, newest first: the whole of the summary's `evidence.latest` (restricted captures are listed; their bytes stay restricted). Each request reads a bounded stretch of the events, so a page may hold fewer than `limit` and still have a `nextCursor`.",
    ),
  };
}

/** An append's answer leads to what it changed: the summary that reflects it, and the events. */
const appendLinks = {
  GetSummary: {
    operationId: "getIncident",
    description: "The summary, reflecting at least this append (read your own write).",
    parameters: { incidentId: "$response.body#/incidentId", minVersion: "$response.body#/version" },
  },
  ListEvents: {
    operationId: "listEvents",
    description: "The incident's stored events, these included.",
    parameters: { incidentId: "$response.body#/incidentId" },
  },
  VerifyIncident: {
    operationId: "verifyIncident",
    description: "Re-check the incident's hash chain.",
    parameters: { incidentId: "$response.body#/incidentId" },
  },
};

const CORE_TAGS = [
  { name: "events", description: "The record: append report events, read them back in version order." },
  { name: "incidents", description: "Summaries projected from the events, now or as known then." },
  { name: "integrity", description: "Re-checking the hash chain from the stored items." },
  { name: "meta", description: "Health, this document, and what browsers and crawlers ask for." },
  { name: "pages", description: "The dashboard, server-rendered HTML over the same data." },
];

/** The parts other route families hand over; each adds one line here when it lands. */
export const apiParts: ApiPart[] = [
  { paths: logApi.paths, schemas: logApi.schemas },
  { paths: feedApi.paths, schemas: feedApi.schemas },
  { paths: deskApi.paths, tags: deskApi.deskTags },
  { paths: peopleApi.paths, schemas: peopleApi.schemas },
  { paths: evidenceApi.paths, schemas: evidenceApi.schemas },
  { paths: findingApi.paths, schemas: findingApi.schemas },
];

export function openApiDocument(parts: readonly ApiPart[] = apiParts): Json {
  const paths: Record<string, Json> = corePaths();
  const schemas: Record<string, Json> = coreSchemas();
  const tags = [...CORE_TAGS];
  for (const part of parts) {
    for (const [path, item] of Object.entries(part.paths)) {
      if (path in paths) throw new Error(`OpenAPI part repeats the path ${path}`);
      paths[path] = item;
    }
    for (const [name, schema] of Object.entries(part.schemas ?? {})) {
      if (name in schemas) throw new Error(`OpenAPI part repeats the schema ${name}`);
      schemas[name] = schema;
    }
    for (const tag of part.tags ?? []) if (!tags.some((t) => t.name === tag.name)) tags.push(tag);
  }
  // A tag a part's operations use without defining it still gets a definition (Redocly asks for one).
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const name of (operation as { tags?: string[] }).tags ?? []) {
        if (!tags.some((t) => t.name === name)) tags.push({ name, description: `The ${name} routes.` });
      }
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "incident-ledger",
      version: "1.0.0",
      summary: "An evidence-grade, event-sourced archive of reports about conflict incidents.",
      description:
        "Every report is an immutable event in a per-incident hash chain; summaries are projected from them. Reads are public; writes need `Authorization: Bearer <token>`. Every error is `application/problem+json` (RFC 9457) naming each failing field; a page route (tag `pages`, `/docs`, the desk) shows a browser that asks for `text/html` first the same problem as a page. Unknown query parameters are refused (400); a wrong method is a 405 with `Allow`. Text answers are compressed (gzip, deflate) when the client accepts it.",
      license: { name: "All rights reserved: no licence is granted yet", url: "/docs#licence" },
      contact: { name: "incident-ledger maintainers" },
    },
    servers: [{ url: "/", description: "The server that serves this document." }],
    tags,
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "Locally the LEDGER_TOKEN; in AWS a JWT checked by the HTTP API's authorizer.",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "ledger_session",
          description: "The desk's signed session cookie (POST /sign-in), with the form's `formToken`.",
        },
      },
    },
  };
}
