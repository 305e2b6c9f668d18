import { RELEASE_NOTE_PATTERN } from "../export/release-note.js";

/**
 * The OpenAPI entries of the feed, the exports and the releases (issue 12), merged into the
 * document by functions/http/openapi.ts. Every answer, errors included, has its type.
 */
type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const query = (name: string, schema: Json, description: string) => ({
  name,
  in: "query",
  required: false,
  schema,
  description,
});
const treeSize = query(
  "treeSize",
  { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  "Cut the export at the log's first N leaves (at most the latest checkpoint's size). Default: the latest checkpoint.",
);
const treeSizeHeader = {
  "X-Tree-Size": {
    description: "The tree size the export was cut at: ask again with `treeSize=` this for the same bytes.",
    required: true,
    schema: { type: "string", pattern: "^(0|[1-9][0-9]*)$" },
  },
};
const badQuery = problem(
  "A query parameter is not a number, is out of range, is beyond the log, or is not a parameter of this route; `errors` names it.",
);
const tags = ["Feed and exports"];
const unknownQuery = problem("A query parameter was given: this route takes none; `errors` names each.");

export const schemas: Record<string, Json> = {
  FeedPage: {
    type: "object",
    required: ["items", "next"],
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["index", "event"],
          properties: { index: { type: "integer", minimum: 0 }, event: ref("StoredEvent") },
        },
      },
      next: {
        type: ["integer", "null"],
        description: "The `after` of the next page; null once the page reaches the latest checkpoint.",
      },
    },
  },
  Release: {
    type: "object",
    required: [
      "number",
      "name",
      "note",
      "treeSize",
      "root",
      "checkpoint",
      "createdAt",
      "createdBy",
      "url",
      "links",
      "citation",
    ],
    properties: {
      number: { type: "integer", minimum: 1 },
      name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" },
      note: { type: "string" },
      treeSize: { type: "integer", minimum: 0 },
      root: { type: "string", description: "The checkpoint's root hash, base64." },
      checkpoint: { type: "string", description: "The signed checkpoint (a signed note) the release names." },
      createdAt: { type: "string", format: "date-time" },
      createdBy: { type: "string" },
      url: { type: "string", format: "uri" },
      links: {
        type: "object",
        required: ["incidentsCsv", "eventsNdjson", "feed", "ucdpGedCsv", "acledCsv"],
        properties: {
          incidentsCsv: { type: "string", format: "uri" },
          eventsNdjson: { type: "string", format: "uri" },
          ucdpGedCsv: {
            type: "string",
            format: "uri",
            description: "ucdp-ged.csv at the release's tree size.",
          },
          acledCsv: { type: "string", format: "uri", description: "acled.csv at the release's tree size." },
          disclosuresNdjson: {
            type: "string",
            format: "uri",
            description:
              "The public disclosures of the events in the release's leaves (those still held: an erased one cannot be given again).",
          },
          feed: { type: "string", format: "uri" },
        },
      },
      citation: { type: "string", description: "name, tree size, root and URL, on one line." },
    },
  },
  ReleaseRequest: {
    type: "object",
    required: ["name"],
    additionalProperties: false,
    properties: {
      name: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" },
      note: {
        type: "string",
        maxLength: 2000,
        pattern: RELEASE_NOTE_PATTERN,
        description:
          "Empty, or text as events' text: at least one character that is not white space, no control characters (tab and line breaks are fine), well-formed Unicode (no lone surrogates); at most 2,000 characters (code points).",
      },
    },
  },
};

export const paths: Record<string, Json> = {
  "/feed": {
    get: {
      operationId: "getFeed",
      tags,
      summary: "Every stored event in log order, paged by log index (for mirrors)",
      description:
        "Pages of `{ index, event }` up to the latest signed checkpoint, so that every item a mirror receives can be proved against a signed tree. Ask again with `after` = `next` until `next` is null. Takes only `after` and `limit`; any other query parameter is a 400 naming it.",
      security: [],
      parameters: [
        query(
          "after",
          { type: "integer", minimum: -1, maximum: Number.MAX_SAFE_INTEGER, default: -1 },
          "Answer the events after this log index.",
        ),
        query("limit", { type: "integer", minimum: 1, maximum: 1000, default: 100 }, "Page size."),
      ],
      responses: {
        "200": json(ref("FeedPage"), "A page of events with their log indexes."),
        "400": badQuery,
        "500": problem(
          "`logged-event-missing`: a leaf of the page names an event the archive no longer holds (`leaf`, `incidentId`, `version` name it); the feed stops there rather than skip it.",
        ),
      },
    },
  },
  "/export/events.ndjson": {
    get: {
      operationId: "exportEvents",
      tags,
      summary: "Every stored event, one JSON object a line, in log order (streamed)",
      description:
        "Cut at the latest checkpoint, or at the first `treeSize` leaves (never beyond the latest checkpoint: unsigned leaves could not be checked). `X-Tree-Size` names the cut. Takes only `treeSize`.",
      security: [],
      parameters: [treeSize],
      responses: {
        "200": {
          description: "Line i + 1 is the event of leaf i. Same bytes for the same tree size.",
          headers: treeSizeHeader,
          content: { "application/x-ndjson": { schema: { type: "string" } } },
        },
        "400": badQuery,
      },
    },
  },
  "/export/incidents.csv": {
    get: {
      operationId: "exportIncidents",
      tags,
      summary:
        "One row per incident (RFC 4180, UTF-8, header row; columns in [the codebook](/codebook#incidentscsv)), streamed",
      description:
        "Each incident's summary as of the latest checkpoint, or of the first `treeSize` leaves (never beyond the latest checkpoint). Cells a spreadsheet would run as a formula are written as text (see the codebook). `X-Tree-Size` names the cut. Takes only `treeSize`.",
      security: [],
      parameters: [treeSize],
      responses: {
        "200": {
          description:
            "Each incident as of its last version within the tree size, ordered by incident id. Same bytes for the same tree size.",
          headers: treeSizeHeader,
          content: { "text/csv": { schema: { type: "string" } } },
        },
        "400": badQuery,
      },
    },
  },
  "/export/ucdp-ged.csv": {
    get: {
      operationId: "exportUcdpGed",
      tags,
      summary: "One row per incident in UCDP GED's layout (RFC 4180, UTF-8, header row), streamed",
      description:
        "UCDP GED's column names for every field that maps (`best`, `low`, `high`, `date_prec`, `where_prec`, `latitude`, `longitude`, `country`, …), then `ledger_*` columns. Rows and cut as for incidents.csv: each incident as of its last version within the first `treeSize` leaves (default: the latest checkpoint), ordered by incident id; the same bytes for the same tree size. Columns, their rules and what does not map: [the codebook](/codebook#ucdp-gedcsv). Takes only `treeSize`.",
      security: [],
      parameters: [treeSize],
      responses: {
        "200": {
          description: "Same bytes for the same tree size.",
          headers: treeSizeHeader,
          content: { "text/csv": { schema: { type: "string" } } },
        },
        "400": badQuery,
      },
    },
  },
  "/export/acled.csv": {
    get: {
      operationId: "exportAcled",
      tags,
      summary: "One row per incident in ACLED's layout (RFC 4180, UTF-8, header row), streamed",
      description:
        "ACLED's column names for every field that maps (`event_date`, `time_precision`, `geo_precision`, `fatalities` — the most conservative estimate —, …), then `ledger_*` columns. Rows and cut as for incidents.csv: each incident as of its last version within the first `treeSize` leaves (default: the latest checkpoint), ordered by incident id; the same bytes for the same tree size. Columns, their rules and what does not map: [the codebook](/codebook#acledcsv). Takes only `treeSize`.",
      security: [],
      parameters: [treeSize],
      responses: {
        "200": {
          description: "Same bytes for the same tree size.",
          headers: treeSizeHeader,
          content: { "text/csv": { schema: { type: "string" } } },
        },
        "400": badQuery,
      },
    },
  },
  "/releases": {
    get: {
      operationId: "listReleases",
      tags,
      summary: "Named checkpoints, oldest first, with export links and citation lines",
      description:
        'The releases, oldest first, a page at a time: each with its tree size, root, signed checkpoint, time, the export links at its tree size and a citation line. An export at a release\'s tree size is the same bytes every time. While more releases follow, the page has `nextCursor` (and a `Link: <…>; rel="next"` header): ask again with `cursor` = `nextCursor`; the last page has no `nextCursor`. Takes only `limit` and `cursor`; any other query parameter is a 400 naming it.',
      security: [],
      parameters: [
        query("limit", { type: "integer", minimum: 1, maximum: 100, default: 100 }, "Page size."),
        query(
          "cursor",
          { type: "string", pattern: "^[1-9][0-9]{0,14}$" },
          "`nextCursor` of the previous page, unchanged.",
        ),
      ],
      responses: {
        "400": problem(
          "`limit` is not a number from 1 to 100, `cursor` is not one the archive gave out, or another query parameter was given; `errors` names it.",
        ),
        "200": {
          ...json(
            {
              type: "object",
              required: ["items"],
              properties: {
                items: { type: "array", items: ref("Release") },
                nextCursor: {
                  type: "string",
                  description:
                    "Present only while more releases follow: pass it as `cursor` for the next page.",
                },
              },
            },
            "A page of releases.",
          ),
          headers: {
            Link: {
              description: 'While more releases follow: `<URL of the next page>; rel="next"`.',
              required: false,
              schema: { type: "string" },
            },
          },
        },
      },
    },
    post: {
      operationId: "createRelease",
      tags,
      summary: "Name the latest signed checkpoint as a release (writers only)",
      description:
        "Body `{ name, note? }`: the name (1–100 of A-Z a-z 0-9 . _ -, starting with a letter or digit) must not be taken; the note is empty or text as events' text (no control characters, no lone surrogates), at most 2,000 characters (code points). The release names the latest signed checkpoint of a non-empty tree (409 when there is none yet). Takes no query parameters.",
      security: [{ bearer: [] }],
      requestBody: { required: true, content: { "application/json": { schema: ref("ReleaseRequest") } } },
      responses: {
        "201": {
          ...json(ref("Release"), "The release; Location names it."),
          headers: { Location: { schema: { type: "string" } } },
        },
        "400": problem("The body is not JSON, or a query parameter was given; `errors` names it."),
        "401": problem("Missing or wrong credentials; nothing stored."),
        "409": problem("The name is taken, or the log has no checkpoint yet."),
        "413": problem("Body too large."),
        "422": problem("Not a release (problem type `invalid-release`): `errors` names each failing field."),
      },
    },
  },
  "/releases/{name}": {
    get: {
      operationId: "getRelease",
      tags,
      summary: "One release",
      description: "The release of this name, as listed by GET /releases. Takes no query parameters.",
      security: [],
      parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        "200": json(ref("Release"), "The release."),
        "400": unknownQuery,
        "404": problem("No release of that name."),
      },
    },
  },
};
