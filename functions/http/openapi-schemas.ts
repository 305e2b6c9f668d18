import * as z from "zod/mini";
import { EVENT_TYPES, GRADES, LINK_RELATIONS, MAX_BATCH, REVISABLE_FIELDS } from "../../events/schemas.js";
import { storedSealedSchemas } from "./openapi-people.js";

/**
 * The document's schemas. Requests come from the very zod schemas that validate posts (every
 * schema with a `meta({ id })` becomes a component, the rules JSON Schema can say included);
 * the answers' shapes are spelled out here, closed (`additionalProperties: false`) so that a
 * field the server adds without documenting it fails the response validator in the tests.
 */
export type Json = Record<string, unknown>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Json) => ({ anyOf: [schema, { type: "null" }] });
const closed = (properties: Record<string, Json>, optional: string[] = [], extra: Json = {}) => ({
  type: "object",
  ...extra,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
  properties,
  additionalProperties: false,
});

const integer = (minimum: number, description?: string) => ({
  type: "integer",
  minimum,
  ...(description ? { description } : {}),
});
const instant = (description: string) => ({ type: "string", format: "date-time", description });
const HASH = { type: "string", pattern: "^[0-9a-f]{64}$", description: "Lowercase hex SHA-256." };

/** What zod says about every registered schema, as OpenAPI components. */
function requestSchemas(): Record<string, Json> {
  const out = z.toJSONSchema(z.globalRegistry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
  });
  const schemas = Object.fromEntries(
    Object.entries(out.schemas).map(([name, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Json;
      return [name, rest as Json];
    }),
  );
  // The server validates batch items one by one (for precise error paths), against the envelope.
  const batch = schemas.EventBatch as { properties: { events: Json } } | undefined;
  if (batch) {
    batch.properties.events = {
      ...batch.properties.events,
      items: ref("EventEnvelope"),
      description: `1–${MAX_BATCH} events, stored all or nothing; no eventId twice in one batch.`,
    };
  }
  const envelope = schemas.EventEnvelope;
  if (envelope) {
    envelope.discriminator = {
      propertyName: "type",
      mapping: Object.fromEntries(EVENT_TYPES.map((t) => [t, `#/components/schemas/${t}`])),
    };
  }
  return schemas;
}

/**
 * A stored event of each type: its envelope's fields (from the request schema, so they cannot
 * drift) plus what the server adds; `eventId` is always there once stored.
 */
function storedEventSchemas(requests: Record<string, Json>): Record<string, Json> {
  const added: Record<string, Json> = {
    incidentId: ref("IncidentId"),
    version: integer(1, "1, 2, 3 … gapless per incident."),
    recordedAt: instant(
      "Server time, ISO 8601 UTC with milliseconds; never earlier than the previous version's.",
    ),
    recordedBy: { type: "string", description: "The writer's identity." },
    schemaVersion: integer(
      1,
      "The version of its type's data schema it was written in; absent on events stored before versions were recorded (version 1). Readers bring older shapes to the current one ([the codebook](/codebook#schema-versions)).",
    ),
    prevHash: { ...HASH, description: "The previous event's hash; 64 zeros for version 1." },
    hash: {
      ...HASH,
      description:
        "SHA-256 (hex) of the RFC 8785 canonical JSON of this event without `hash` (prevHash included).",
    },
  };
  const stored: Record<string, Json> = {};
  for (const type of EVENT_TYPES) {
    const envelope = requests[type] as { properties: Record<string, Json>; required: string[] } | undefined;
    if (!envelope) throw new Error(`no request schema for ${type}`);
    // Sealed values are commitments once stored (openapi-people.ts).
    const sealed: Record<string, Json> = {
      ...("attributedTo" in envelope.properties ? { attributedTo: ref("StoredAttribution") } : {}),
      ...(type === "VictimsRecorded" ? { data: ref("StoredVictimsRecordedData") } : {}),
    };
    stored[`Stored${type}`] = {
      type: "object",
      required: [
        ...new Set([
          ...envelope.required,
          "eventId",
          ...Object.keys(added).filter((k) => k !== "schemaVersion"),
        ]),
      ],
      properties: { ...envelope.properties, ...sealed, ...added },
      additionalProperties: false,
    };
  }
  stored.StoredEvent = {
    description:
      "An event as stored: the envelope plus what the server adds. `hash` covers every other field.",
    oneOf: EVENT_TYPES.map((t) => ref(`Stored${t}`)),
    discriminator: {
      propertyName: "type",
      mapping: Object.fromEntries(EVENT_TYPES.map((t) => [t, `#/components/schemas/Stored${t}`])),
    },
  };
  return { ...stored, ...storedSealedSchemas(requests) };
}

const reference = {
  eventId: ref("EventId"),
  version: integer(1),
  recordedAt: instant("When the archive recorded the event."),
  attributedTo: ref("StoredAttribution"),
};

const PUBLISHER = {
  type: "string",
  description:
    "Who published it (`source.publisher`); a view stored by an older version lacks it until rebuilt.",
};

const BOUNDED_ASSESSMENTS = {
  type: "array",
  maxItems: 100,
  items: { $ref: "#/components/schemas/AssessmentSummary" },
  description:
    "The newest live assessments, oldest first: at most 100 (fewer should they not fit the summary).",
};

const answerSchemas: Record<string, Json> = {
  Problem: {
    type: "object",
    description:
      "RFC 9457 problem document. `errors` lists each failing field; `type` is `/docs#problem-<slug>`.",
    required: ["type", "title", "status", "detail"],
    properties: {
      type: { type: "string" },
      title: { type: "string" },
      status: { type: "integer", minimum: 400, maximum: 599 },
      detail: { type: "string" },
      instance: { type: "string" },
      currentVersion: {
        type: "integer",
        minimum: 0,
        description: "On a 409 for If-Match, or a 404 for a version not reached: the incident's version now.",
      },
      expectedVersion: {
        type: "integer",
        minimum: 0,
        description: "On a 409 for If-Match: the version it named.",
      },
      errorsOmitted: {
        type: "integer",
        minimum: 1,
        description:
          "How many more fields failed than the 100 `errors` lists (absent when none were left out).",
      },
      errors: {
        type: "array",
        maxItems: 100,
        items: closed({
          path: { type: "string", description: "e.g. `events[1].data.figures.killed.value`, `query.limit`" },
          message: { type: "string" },
        }),
      },
    },
  },
  AppendResult: closed({
    incidentId: ref("IncidentId"),
    version: integer(1, "The incident's version after this append."),
    events: {
      type: "array",
      minItems: 1,
      maxItems: MAX_BATCH,
      items: closed({ eventId: ref("EventId"), version: integer(1), hash: HASH }),
    },
  }),
  EventPage: closed({
    items: { type: "array", items: ref("StoredEvent") },
    next: {
      anyOf: [integer(1), { type: "null" }],
      description:
        "The `after` to ask for the next page (the version of the last item); null on the last page.",
    },
  }),
  SourcedFigure: closed({
    figure: ref("Figure"),
    attributedTo: ref("StoredAttribution"),
    publisher: { type: "string" },
    eventId: ref("EventId"),
    version: integer(1),
    recordedAt: instant("When the archive recorded the report."),
  }),
  CasualtySummary: closed(
    {
      low: {
        ...nullable({ type: "integer", minimum: 0 }),
        description: "The largest lower bound any source gives.",
      },
      high: {
        ...nullable({ type: "integer", minimum: 0 }),
        description: "null when any source is open-ended; else the largest upper bound.",
      },
      latest: nullable(ref("SourcedFigure")),
      bySource: {
        type: "array",
        maxItems: 100,
        items: ref("SourcedFigure"),
        description:
          "Each live source's latest report, the most recent first: at most 100 (fewer should they not fit the summary's 256 KB); all of them at /incidents/{incidentId}/casualties/{category}/sources.",
      },
      sourceCount: integer(0, "How many live sources there are in all."),
      reports: integer(0, "Reports of this category ever recorded, retracted ones included."),
      best: {
        ...nullable({ type: "integer", minimum: 0 }),
        description:
          "The lower median of the eligible sources' best values (the codebook, /codebook#best-estimates): each source's latest live report whose latest assessment is not `false`; exact/about/at-least its value, at-most 0, a range its min, dozens 24, hundreds 200. null: no eligible source.",
      },
      acled: {
        ...nullable({ type: "integer", minimum: 0 }),
        description:
          "The smallest of the eligible sources' ACLED-style values (as `best`, but dozens 12 and hundreds 100): ACLED's most conservative estimate. null: no eligible source.",
      },
      lowest: {
        ...nullable({ type: "integer", minimum: 0 }),
        description:
          "The smallest of the eligible sources' best values (the values `best` is the lower median of), so never above `best`: UCDP GED's `low`. Unlike `low` (the largest lower bound of every live source). null: no eligible source. Absent from a summary stored before it existed.",
      },
    },
    ["lowest"],
  ),
  GradeGiven: closed(
    {
      ...reference,
      grade: ref("Grade"),
      reasoning: { type: "string", description: "Up to 1,000 characters, ending in “…” when clipped." },
    },
    ["reasoning"],
  ),
  AttributionSummary: closed(
    {
      ...reference,
      perpetrator: closed(
        { name: { type: "string" }, side: { type: "string" }, actorId: { type: "string" } },
        ["side", "actorId"],
      ),
      certainty: ref("Certainty"),
      reasoning: { type: "string", description: "Up to 1,000 characters, ending in “…” when clipped." },
    },
    ["reasoning"],
  ),
  LinkSummary: closed({
    ...reference,
    incidentId: { ...ref("IncidentId"), description: "The other incident." },
    relation: { type: "string", enum: [...LINK_RELATIONS] },
    direction: {
      type: "string",
      enum: ["outgoing", "incoming"],
      description:
        "outgoing: posted on this incident (`duplicate-of`: this is a duplicate of the other); incoming: posted on the other incident, naming this one (read `<other> <relation> <this>`). `eventId` and `version` are of the incident that posted it.",
    },
  }),
  AssessmentSummary: closed(
    {
      eventId: ref("EventId"),
      version: integer(1),
      attributedTo: ref("StoredAttribution"),
      verdict: ref("Verdict"),
      reasoning: { type: "string" },
    },
    ["reasoning"],
  ),
  StatementSummary: closed(
    {
      ...reference,
      quote: { type: "string", description: "Up to 1,000 characters, ending in “…” when clipped." },
      stance: ref("Stance"),
      accuses: { type: "string" },
      channel: { type: "string" },
      publisher: PUBLISHER,
      assessments: BOUNDED_ASSESSMENTS,
      assessmentCount: integer(0, "How many live assessments it has in all."),
    },
    ["accuses", "channel", "publisher"],
  ),
  StatementRow: closed(
    {
      ...reference,
      quote: { type: "string", description: "Up to 1,000 characters, ending in “…” when clipped." },
      stance: ref("Stance"),
      accuses: { type: "string" },
      channel: { type: "string" },
      publisher: PUBLISHER,
    },
    ["accuses", "channel", "publisher"],
  ),
  DenialSummary: closed(
    {
      ...reference,
      claim: { type: "string" },
      counterClaim: { type: "string" },
      quote: { type: "string", description: "Up to 1,000 characters, ending in “…” when clipped." },
      assessments: BOUNDED_ASSESSMENTS,
      assessmentCount: integer(0, "How many live assessments it has in all."),
      status: {
        type: "string",
        enum: ["unassessed", "supported", "disputed", "false", "unverified"],
        description: "unassessed, or the verdict of the latest assessment.",
      },
      publisher: PUBLISHER,
    },
    ["counterClaim", "quote", "publisher"],
  ),
  Summary: closed(
    {
      incidentId: ref("IncidentId"),
      version: integer(1),
      title: nullable({ type: "string" }),
      kind: nullable({ type: "string" }),
      location: nullable(ref("Location")),
      occurredAt: nullable({ type: "string" }),
      occurredOn: nullable({ type: "string" }),
      occurredUntil: nullable({ type: "string", description: "When it ended (an instant or a date)." }),
      timePrecision: nullable(ref("TimePrecision")),
      description: nullable({ type: "string" }),
      revisedInVersion: {
        ...nullable({ type: "integer", minimum: 2 }),
        description: `The version of the last IncidentRevised (null: never revised). Revisable: ${REVISABLE_FIELDS.join(", ")}.`,
      },
      revisions: integer(0, "How many IncidentRevised events there are."),
      firstRecordedAt: nullable({ type: "string", format: "date-time" }),
      lastRecordedAt: nullable({ type: "string", format: "date-time" }),
      casualties: {
        type: "object",
        description:
          "Per category, over live reports, each source's latest: `low` the largest lower bound, `high` null when any is open-ended, else the largest upper bound.",
        propertyNames: { pattern: "^[a-z][A-Za-z]{0,63}$" },
        maxProperties: 64,
        additionalProperties: ref("CasualtySummary"),
      },
      statements: closed({
        count: integer(0, "Live statements."),
        latest: {
          type: "array",
          maxItems: 10,
          items: ref("StatementSummary"),
          description: "The 10 latest, newest first.",
        },
      }),
      denials: {
        type: "array",
        maxItems: 100,
        items: ref("DenialSummary"),
        description:
          "The newest live denials, in version order: at most 100 (fewer should they not fit the summary's 256 KB); all at /incidents/{incidentId}/denials.",
      },
      denialCount: integer(0, "Live denials in all."),
      contested: { type: "boolean", description: "The incident has a denial that is not retracted." },
      retractedEventIds: {
        type: "array",
        maxItems: 100,
        items: ref("EventId"),
        description:
          "The latest retracted ids, in the order retracted: at most 100; all at /incidents/{incidentId}/retractions.",
      },
      retractedCount: integer(0, "Retracted events in all."),
      grade: closed({
        given: { ...nullable(ref("GradeGiven")), description: "The latest IncidentGraded, if any." },
        suggested: {
          type: "string",
          enum: [...GRADES],
          description:
            "What the ledger suggests from its events (the codebook, /codebook#suggested-grade): contested while a denial is live, else corroborated with eligible casualty figures from two sources of different publishers, else single-source.",
        },
        count: integer(0, "How many IncidentGraded events there are."),
      }),
      attributions: closed({
        count: integer(0, "How many AttributionAssessed events there are."),
        latest: {
          type: "array",
          maxItems: 100,
          items: ref("AttributionSummary"),
          description:
            "Each perpetrator's latest assessment, the most recent first; the latest 100, every one at `/incidents/{incidentId}/attributions`.",
        },
      }),
      links: closed({
        count: integer(
          0,
          "Incidents this one links to, plus links other incidents posted naming it. A link replacing one the latest 100 no longer hold is counted again; `/incidents/{incidentId}/links` lists each once.",
        ),
        items: {
          type: "array",
          maxItems: 100,
          items: ref("LinkSummary"),
          description:
            "Both directions, the most recently recorded first; the latest 100, every one at `/incidents/{incidentId}/links`. A link posted on another incident appears here once that incident is projected; a past view shows those recorded by its point.",
        },
      }),
      victims: ref("VictimsSummary"),
      evidence: closed({
        count: integer(0, "Captures (EvidenceCaptured events) of this incident."),
        latest: {
          type: "array",
          maxItems: 100,
          description:
            "The 100 latest captures, newest first; every one at `/incidents/{incidentId}/evidence`.",
          items: ref("EvidenceListRow"),
        },
      }),
      headHash: HASH,
    },
    [],
    { description: "The current-state view of one incident, projected from its events." },
  ),
  CategorySourcePage: listPage(
    ref("SourcedFigure"),
    "Each live source's latest report of the category, the most recent first.",
  ),
  DenialPage: listPage(ref("DenialSummary"), "The live denials, in version order."),
  LinkPage: listPage(ref("LinkSummary"), "Every current link, both directions, the most recent first."),
  AttributionPage: listPage(
    ref("AttributionSummary"),
    "Each perpetrator's current assessment, the most recent first.",
  ),
  EvidenceListRow: closed(
    {
      eventId: ref("EventId"),
      sha256: HASH,
      kind: { type: "string" },
      title: { type: "string" },
      access: { type: "string", enum: ["public", "restricted"] },
      retracted: {
        const: true,
        description: "A ReportRetracted names this capture: the bytes are still held, the report withdrawn.",
      },
    },
    ["title", "retracted"],
  ),
  EvidencePage: listPage(
    ref("EvidenceListRow"),
    "Every capture, newest first. A page may hold fewer than `limit` (each request reads a bounded stretch of the events) and still have a `nextCursor`.",
  ),
  RetractionPage: listPage(ref("EventId"), "The retracted event ids, in the order retracted."),
  StatementPage: listPage(
    ref("StatementRow"),
    "Live statements, newest first. A page may hold fewer than `limit` (each request reads a bounded stretch of the events) and still have a `nextCursor`.",
  ),
  SummaryPage: closed({
    items: { type: "array", items: ref("Summary") },
    nextCursor: nullable({ type: "string", description: "Pass as `cursor` for the next page." }),
  }),
  ChainCheck: {
    oneOf: [
      closed({
        incidentId: ref("IncidentId"),
        ok: { const: true },
        version: integer(1),
        headHash: HASH,
        checked: integer(1, "How many stored events were re-read and re-hashed."),
      }),
      closed(
        {
          incidentId: ref("IncidentId"),
          ok: { const: false },
          firstBadVersion: integer(1),
          reason: { type: "string" },
          expected: { type: "string" },
          found: { type: "string" },
          version: integer(0, "The last version that checked out."),
          checked: integer(
            0,
            "How many stored events were looked at, the one that broke the chain included.",
          ),
        },
        ["expected", "found"],
      ),
    ],
  },
  Health: {
    oneOf: [closed({ ok: { const: true } }), closed({ ok: { const: false }, detail: { type: "string" } })],
  },
};

function listPage(items: Json, description: string): Json {
  return closed(
    {
      items: { type: "array", maxItems: 100, items },
      nextCursor: nullable({
        type: "string",
        description: "Pass as `cursor` for the next page; null on the last.",
      }),
    },
    [],
    { description },
  );
}

export function coreSchemas(): Record<string, Json> {
  const requests = requestSchemas();
  return { ...requests, ...storedEventSchemas(requests), ...answerSchemas };
}
