import * as z from "zod/mini";
import { MAX_BATCH } from "../../events/schemas.js";
import * as feedApi from "./openapi-feed.js";
import * as logApi from "./openapi-log.js";

/**
 * The OpenAPI 3.1 document. Request schemas come from the same zod schemas that validate
 * posts (every schema with a `meta({ id })` becomes a component); the answers' shapes are
 * written here, next to the routes' descriptions.
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
const incidentParam = { name: "incidentId", in: "path", required: true, schema: ref("IncidentId") };
const query = (name: string, schema: Json, description: string) => ({
  name,
  in: "query",
  required: false,
  schema,
  description,
});

function requestComponents(): Record<string, Json> {
  const out = z.toJSONSchema(z.globalRegistry, {
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
  });
  return Object.fromEntries(
    Object.entries(out.schemas).map(([name, schema]) => {
      const { $schema: _s, $id: _i, ...rest } = schema as Json;
      return [name, rest];
    }),
  );
}

const nullable = (schema: Json) => ({ anyOf: [schema, { type: "null" }] });

const answerComponents: Record<string, Json> = {
  Problem: {
    type: "object",
    description: "RFC 9457 problem document; `errors` lists each failing field.",
    required: ["type", "title", "status", "detail"],
    properties: {
      type: { type: "string" },
      title: { type: "string" },
      status: { type: "integer" },
      detail: { type: "string" },
      instance: { type: "string" },
      currentVersion: { type: "integer", description: "On a 409 for If-Match: the incident's version now." },
      errors: {
        type: "array",
        items: {
          type: "object",
          required: ["path", "message"],
          properties: { path: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
  StoredEvent: {
    type: "object",
    description:
      "An event as stored: the envelope plus what the server adds. `hash` covers every other field.",
    required: [
      "eventId",
      "incidentId",
      "version",
      "type",
      "source",
      "data",
      "recordedAt",
      "recordedBy",
      "prevHash",
      "hash",
    ],
    properties: {
      eventId: ref("EventId"),
      incidentId: ref("IncidentId"),
      version: { type: "integer", minimum: 1 },
      type: { type: "string" },
      occurredAt: { type: "string", format: "date-time" },
      source: ref("Source"),
      attributedTo: ref("Attribution"),
      data: { type: "object" },
      recordedAt: { type: "string", format: "date-time" },
      recordedBy: { type: "string" },
      prevHash: { type: "string", pattern: "^[0-9a-f]{64}$" },
      hash: { type: "string", pattern: "^[0-9a-f]{64}$" },
    },
  },
  AppendResult: {
    type: "object",
    required: ["incidentId", "version", "events"],
    properties: {
      incidentId: ref("IncidentId"),
      version: { type: "integer" },
      events: {
        type: "array",
        items: {
          type: "object",
          properties: { eventId: ref("EventId"), version: { type: "integer" }, hash: { type: "string" } },
        },
      },
    },
  },
  SourcedFigure: {
    type: "object",
    properties: {
      figure: ref("Figure"),
      attributedTo: ref("Attribution"),
      publisher: { type: "string" },
      eventId: ref("EventId"),
      version: { type: "integer" },
      recordedAt: { type: "string", format: "date-time" },
    },
  },
  Summary: {
    type: "object",
    description: "The current-state view of one incident, projected from its events.",
    required: [
      "incidentId",
      "version",
      "casualties",
      "statements",
      "denials",
      "contested",
      "retractedEventIds",
      "headHash",
    ],
    properties: {
      incidentId: ref("IncidentId"),
      version: { type: "integer" },
      title: nullable({ type: "string" }),
      kind: nullable({ type: "string" }),
      location: { type: ["object", "null"] },
      occurredAt: nullable({ type: "string" }),
      occurredOn: nullable({ type: "string" }),
      firstRecordedAt: nullable({ type: "string" }),
      lastRecordedAt: nullable({ type: "string" }),
      casualties: {
        type: "object",
        description:
          "Per category, over live reports, each source's latest: `low` the largest lower bound, `high` null when any is open-ended, else the largest upper bound.",
        additionalProperties: {
          type: "object",
          properties: {
            low: nullable({ type: "integer" }),
            high: nullable({ type: "integer" }),
            latest: nullable(ref("SourcedFigure")),
            bySource: { type: "array", items: ref("SourcedFigure") },
            reports: {
              type: "integer",
              description: "Reports of this category ever recorded, retracted ones included.",
            },
          },
        },
      },
      statements: {
        type: "object",
        properties: { count: { type: "integer" }, latest: { type: "array", items: { type: "object" } } },
      },
      denials: {
        type: "array",
        items: {
          type: "object",
          properties: {
            eventId: ref("EventId"),
            attributedTo: ref("Attribution"),
            claim: { type: "string" },
            counterClaim: { type: "string" },
            assessments: { type: "array", items: { type: "object" } },
            status: { enum: ["unassessed", "supported", "disputed", "false", "unverified"] },
          },
        },
      },
      contested: { type: "boolean" },
      retractedEventIds: { type: "array", items: ref("EventId") },
      headHash: { type: "string" },
    },
  },
};

export function openApiDocument(serverUrl?: string): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "incident-ledger",
      version: "1.0.0",
      description:
        "An evidence-grade, event-sourced archive of reports about conflict incidents. Every report is an immutable event in a per-incident hash chain; summaries are projected from them.",
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: {
      schemas: { ...requestComponents(), ...answerComponents, ...feedApi.schemas, ...logApi.schemas },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    paths: {
      "/incidents/{incidentId}/events": {
        post: {
          summary: "Append one event, or a batch of 1–25 atomically",
          description: `Body: one EventEnvelope, or { "events": [ … ] } with 1–${MAX_BATCH}. Optional If-Match: "N" appends only if the incident is at version N ("0": it must not exist). Without it a race with another writer is retried by the server.`,
          security: [{ bearer: [] }],
          parameters: [
            incidentParam,
            { name: "If-Match", in: "header", required: false, schema: { type: "string", example: '"3"' } },
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: { oneOf: [ref("EventEnvelope"), ref("EventBatch")] } } },
          },
          responses: {
            "201": json(
              ref("AppendResult"),
              "Stored. Location and ETag name the incident and its new version.",
            ),
            "200": json(
              ref("AppendResult"),
              "Already stored with the same content: the first answer again; nothing new stored.",
            ),
            "400": problem("The body is not JSON, or a header is malformed."),
            "401": problem("Missing or wrong credentials; nothing stored."),
            "409": problem(
              "If-Match mismatch (with currentVersion), the incident exists/does not exist, or the eventId is taken.",
            ),
            "413": problem("Body over 256 KiB."),
            "422": problem("Valid JSON, invalid event: each failing field is listed in errors."),
          },
        },
        get: {
          summary: "The stored events in version order",
          parameters: [
            incidentParam,
            query(
              "after",
              { type: "integer", minimum: 0, default: 0 },
              "Return events with a version above this.",
            ),
            query("limit", { type: "integer", minimum: 1, maximum: 500, default: 100 }, "Page size."),
          ],
          responses: {
            "200": json(
              {
                type: "object",
                properties: {
                  items: { type: "array", items: ref("StoredEvent") },
                  next: {
                    type: ["integer", "null"],
                    description: "The `after` of the next page; null on the last.",
                  },
                },
              },
              "A page of events.",
            ),
            "404": problem("Unknown incident."),
          },
        },
      },
      "/incidents/{incidentId}": {
        get: {
          summary: "The incident's summary, now or as it stood then",
          parameters: [
            incidentParam,
            query(
              "asOf",
              { type: "string", format: "date-time" },
              "What was known at this time (by recordedAt).",
            ),
            query("version", { type: "integer", minimum: 1 }, "The summary as of this version."),
            query(
              "minVersion",
              { type: "integer", minimum: 0 },
              "Reflect at least this version (read your own write).",
            ),
          ],
          responses: {
            "200": json(ref("Summary"), 'The summary; ETag: "N" is its version.'),
            "304": { description: "If-None-Match matched the current version." },
            "404": problem("Unknown incident, or it had not reached that point."),
          },
        },
      },
      "/incidents": {
        get: {
          summary: "Summaries, newest activity first",
          parameters: [
            query("kind", { type: "string" }, "e.g. missile-strike"),
            query("country", { type: "string" }, "ISO 3166-1 alpha-2"),
            query("contested", { type: "boolean" }, "Only incidents with (or without) a live denial."),
            query("limit", { type: "integer", minimum: 1, maximum: 100, default: 20 }, "Page size."),
            query("cursor", { type: "string" }, "nextCursor of the previous page."),
          ],
          responses: {
            "200": json(
              {
                type: "object",
                properties: {
                  items: { type: "array", items: ref("Summary") },
                  nextCursor: { type: ["string", "null"] },
                },
              },
              "A page of summaries.",
            ),
          },
        },
      },
      "/incidents/{incidentId}/verify": {
        get: {
          summary: "Re-read the stored items and re-check the hash chain",
          parameters: [incidentParam],
          responses: {
            "200": json(
              {
                type: "object",
                properties: {
                  ok: { type: "boolean" },
                  version: { type: "integer" },
                  headHash: { type: "string" },
                  firstBadVersion: { type: "integer" },
                  reason: { type: "string" },
                },
              },
              "ok with the head hash, or the first version that fails.",
            ),
            "404": problem("Unknown incident."),
          },
        },
      },
      "/health": {
        get: {
          summary: "Whether the store answers",
          responses: { "200": json({ type: "object" }, "{ ok: true }") },
        },
      },
      "/openapi.json": {
        get: { summary: "This document", responses: { "200": { description: "OpenAPI 3.1" } } },
      },
      "/docs": { get: { summary: "This document as a page", responses: { "200": { description: "HTML" } } } },
      ...feedApi.paths,
      ...logApi.paths,
    },
  };
}
