/**
 * The OpenAPI entries of finding (functions/http/routes/finding.ts, finding-pages.tsx): the
 * listing's search parameters, the source routes and pages, and the map. Merged into the
 * document by functions/http/openapi.ts.
 */
import { GRADES, KIND_SLUG_PATTERN } from "../../events/schemas.js";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const html = (description: string) => ({
  description,
  content: { "text/html": { schema: { type: "string" } } },
});
const query = (name: string, schema: Json, description: string) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const read = { security: [] as unknown[] };
const DAY = { type: "string", format: "date" };
const LON = "-?(?:180(?:\\.0+)?|(?:1[0-7][0-9]|[0-9]?[0-9])(?:\\.[0-9]+)?)";
const LAT = "-?(?:90(?:\\.0+)?|[0-8]?[0-9](?:\\.[0-9]+)?)";
const BBOX = `${LON},${LAT},${LON},${LAT}`;

/** q, from, to, source and bbox: on GET /incidents and on the pages that list incidents. */
export const listingParameters: Json[] = [
  query(
    "q",
    { type: "string", minLength: 1, maxLength: 500, pattern: "\\S" },
    "Words matched in titles, places, descriptions, source and speaker names, quotes and claims (whole words, case and accents ignored; of more than 8 distinct words, the 8 longest); the quotes and claims of every report not retracted, including those the summary no longer shows. Operators and regular-expression characters are plain text, not searched: a query of symbols only matches nothing. Best match first: most words matched, then where they occur; ties the newest occurrence first. Empty, blank or over 500 characters: 400.",
  ),
  query(
    "from",
    DAY,
    "Only incidents that went on at or after this day (ISO 8601 date): whose last day (the day of `occurredUntil`, else of `occurredAt` or `occurredOn`, as written) is not before it. An incident that went on for days is found by any day of it.",
  ),
  query(
    "to",
    DAY,
    "Only incidents that began on or before this day (the day of `occurredAt` or `occurredOn`); `from` after `to` is 400. With a date range and without `q`, each incident is listed at the latest month it went on in within the range.",
  ),
  query(
    "source",
    { type: "string", minLength: 1, maxLength: 300, pattern: "\\S" },
    "Only incidents naming this source or speaker (a speaker, assessor or publisher of any report the incident holds, or a private person of this pseudonym), compared after NFC normalisation and white-space trimming and collapsing.",
  ),
  query(
    "bbox",
    { type: "string", pattern: `^${BBOX}$` },
    "minLon,minLat,maxLon,maxLat in degrees (longitudes -180..180, latitudes -90..90): only incidents with coordinates in the box. Each minimum must be at most its maximum (no box across the antimeridian), else 400.",
  ),
];

/** A field a form may leave empty ("any"), with blanks around it ignored; else it must match `inner`. */
const blankOr = (inner: string) => ({ type: "string", pattern: `^\\s*(?:${inner})?\\s*$` });

/** The search parameters as a page reads them: blank is "any", else as GET /incidents reads them. */
const PAGE_SEARCH: Record<string, Json> = {
  q: { type: "string", maxLength: 500 },
  from: { anyOf: [DAY, blankOr("")] },
  to: { anyOf: [DAY, blankOr("")] },
  source: { type: "string", maxLength: 300 },
  bbox: blankOr(BBOX),
};

/**
 * The filters of the pages that list incidents (the dashboard, the map): a form's empty field
 * means "any" and blanks around a value are ignored; a bad one is answered with a page that
 * names it.
 */
export const pageFilters: Json[] = [
  query("kind", blankOr(KIND_SLUG_PATTERN.source.slice(1, -1)), "Only this kind (empty: any)."),
  query("country", blankOr("[A-Za-z]{2}"), "Only this ISO 3166-1 alpha-2 country (empty: any)."),
  query("contested", { type: "string", enum: ["true", "false", ""] }, "`true`, `false` or empty (either)."),
  query(
    "grade",
    blankOr(GRADES.join("|")),
    "Only incidents with this grade, given or suggested (empty: any).",
  ),
  ...listingParameters.map((p) => ({ ...p, schema: PAGE_SEARCH[p.name as string] })),
];

export const LISTING_NOTE =
  "With q, from, to, source or bbox the finding index answers: each request reads a bounded number of index entries, so a page may come back short with a nextCursor; without q the newest occurrence comes first.";

const SOURCE_NAME = {
  name: "name",
  in: "path",
  required: true,
  description:
    "A source or speaker name as it appears on events (compared after NFC and white space), or a private person's pseudonym.",
  schema: { type: "string", minLength: 1, maxLength: 300 },
};

const SPEAKER = {
  type: "string",
  description: "Who said it: a private person as `private source <pseudonym>`, never by name.",
};
const PUBLISHER = { type: "string", description: "Who published it (`source.publisher`)." };

export const schemas: Record<string, Json> = {
  SourceRecord: {
    type: "object",
    additionalProperties: false,
    required: [
      "incidentId",
      "title",
      "occurred",
      "location",
      "figures",
      "statements",
      "denials",
      "assessed",
      "more",
    ],
    properties: {
      incidentId: ref("IncidentId"),
      title: { anyOf: [{ type: "string" }, { type: "null" }] },
      occurred: { anyOf: [{ type: "string" }, { type: "null" }] },
      location: { anyOf: [{ type: "object" }, { type: "null" }] },
      figures: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["category", "figure", "publisher", "speaker", "eventId", "version", "assessments"],
          properties: {
            category: { type: "string" },
            figure: ref("Figure"),
            publisher: { type: "string" },
            speaker: { type: "string" },
            eventId: { type: "string" },
            version: { type: "integer", minimum: 1 },
            assessments: {
              type: "array",
              description:
                "Live assessments (ClaimAssessed) of this report, the newest last: the latest decides whether it counts in the category's best estimate.",
              items: {
                type: "object",
                additionalProperties: false,
                required: ["eventId", "verdict"],
                properties: {
                  eventId: { type: "string" },
                  verdict: { type: "string", enum: ["supported", "disputed", "false", "unverified"] },
                },
              },
            },
          },
        },
      },
      statements: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["eventId", "quote", "stance", "speaker", "assessments"],
          properties: {
            eventId: { type: "string" },
            quote: { type: "string" },
            stance: { type: "string" },
            speaker: SPEAKER,
            publisher: PUBLISHER,
            assessments: { type: "array", items: { type: "object" } },
          },
        },
      },
      denials: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["eventId", "claim", "status", "speaker", "assessments"],
          properties: {
            eventId: { type: "string" },
            claim: { type: "string" },
            counterClaim: { type: "string" },
            status: { type: "string" },
            speaker: SPEAKER,
            publisher: PUBLISHER,
            assessments: { type: "array", items: { type: "object" } },
          },
        },
      },
      assessed: {
        type: "array",
        description: "Assessments this source made of others' statements, denials and figures.",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["eventId", "targetEventId", "verdict"],
          properties: {
            eventId: { type: "string" },
            targetEventId: { type: "string" },
            verdict: { type: "string" },
          },
        },
      },
      more: {
        type: "array",
        description:
          "The incident's sub-resources that page the rows its summary leaves out (statements past the latest, denials past 100, a category's sources past 100): this source may be named there too. Empty when the summary lists every row.",
        items: { type: "string" },
      },
    },
  },
  SourcePage: {
    type: "object",
    additionalProperties: false,
    required: ["name", "items", "nextCursor"],
    properties: {
      name: { type: "string" },
      items: { type: "array", items: ref("SourceRecord") },
      nextCursor: { anyOf: [{ type: "string" }, { type: "null" }] },
    },
  },
};

export const paths: Record<string, Json> = {
  "/sources/{name}": {
    get: {
      operationId: "getSource",
      tags: ["incidents"],
      summary: "Every incident naming a source or speaker, with what it reported there",
      description:
        "Newest occurrence first: per incident, the source's figures, statements and denials (with their assessments and status) and the assessments it made of others. From each incident's summary, so an incident with more than 100 statements or denials shows its latest.",
      ...read,
      parameters: [
        SOURCE_NAME,
        query("limit", { type: "integer", minimum: 1, maximum: 100, default: 20 }, "Page size, 1–100."),
        query("cursor", { type: "string" }, "`nextCursor` of the previous page, unchanged."),
      ],
      responses: {
        "200": {
          description: "A page of incidents.",
          content: { "application/json": { schema: ref("SourcePage") } },
        },
        "400": problem(
          "A query parameter is malformed or unknown, or the name is blank or over 300 characters.",
        ),
        "404": problem("No incident names this source or speaker."),
        "500": problem("The archive could not answer."),
      },
    },
  },
  "/source/{name}": {
    get: {
      operationId: "getSourcePage",
      tags: ["pages"],
      summary: "A source's page (HTML): every incident naming it, with what it reported",
      description:
        "For people: the same data as GET /sources/{name}, newest occurrence first, each incident linked.",
      ...read,
      parameters: [SOURCE_NAME, query("cursor", { type: "string" }, "The next page's cursor.")],
      responses: {
        "200": html("The page."),
        "400": html("A page that says which parameter to fix."),
        "404": html("A page that says no incident names this source."),
      },
    },
  },
  "/map": {
    get: {
      operationId: "getMap",
      tags: ["pages"],
      summary: "A map of incidents with coordinates (HTML with an inline SVG drawn on the server)",
      description:
        "Natural Earth boundaries (world-atlas) projected on the server; each point links to its incident. Takes the listing's filters; readable without JavaScript.",
      ...read,
      parameters: [...pageFilters],
      responses: { "200": html("The page."), "400": html("A page that says which filter to fix.") },
    },
  },
};
