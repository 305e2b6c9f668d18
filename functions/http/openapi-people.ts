/**
 * The OpenAPI entries of the people's routes (issue 22): an event's disclosures and the public
 * disclosures export, and the stored shapes of sealed values. Merged by functions/http/openapi.ts.
 */
type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: ref("Problem") } },
});
const unknownQuery = problem("A query parameter was given: this route takes none; `errors` names each.");
const tags = ["people"];
const DIGEST = "^sha-256:[A-Za-z0-9_-]{43}$";
const sealedOr = (schema: Json) => ({ anyOf: [schema, ref("Commitment")] });

export const schemas: Record<string, Json> = {
  Commitment: {
    type: "object",
    description:
      "A sealed value (CONTRACT.md “People”): `sha-256:` and the unpadded base64url SHA-256 of the disclosure's ASCII. The disclosure is base64url(RFC 8785 JSON of [salt, pointer, value]).",
    required: ["$sealed"],
    properties: { $sealed: { type: "string", pattern: DIGEST } },
    additionalProperties: false,
  },
  DisclosureItem: {
    type: "object",
    required: ["pointer", "disclosure", "visibility"],
    properties: {
      pointer: {
        type: "string",
        description: "The JSON Pointer (RFC 6901) of the sealed value in the stored event.",
      },
      disclosure: { type: "string", pattern: "^[A-Za-z0-9_-]+$" },
      visibility: { type: "string", enum: ["public", "restricted"] },
    },
    additionalProperties: false,
  },
  DisclosureList: {
    type: "object",
    required: ["items"],
    properties: { items: { type: "array", items: ref("DisclosureItem") } },
    additionalProperties: false,
  },
  VictimsSummary: {
    type: "object",
    description:
      "Counts only, never a sealed value; `distinct` after same-person links (on each pair of entries, the latest live judgement holds).",
    required: ["recorded", "distinct", "byStatus", "bySex", "byAgeGroup", "named"],
    properties: {
      recorded: { type: "integer", minimum: 0 },
      distinct: { type: "integer", minimum: 0 },
      byStatus: { type: "object", additionalProperties: { type: "integer", minimum: 1 } },
      bySex: { type: "object", additionalProperties: { type: "integer", minimum: 1 } },
      byAgeGroup: { type: "object", additionalProperties: { type: "integer", minimum: 1 } },
      named: { type: "integer", minimum: 0, description: "Entries with a (sealed) name." },
    },
    additionalProperties: false,
  },
};

/**
 * The stored forms of the request schemas that hold sealed values: a private person's name and
 * role, and a victim's sealed fields, may be a Commitment once stored.
 */
export function storedSealedSchemas(requests: Record<string, Json>): Record<string, Json> {
  const attribution = structuredClone(requests.Attribution ?? {}) as { properties: Record<string, Json> };
  for (const field of ["name", "role"]) {
    const schema = attribution.properties[field];
    if (schema) attribution.properties[field] = sealedOr(schema);
  }
  const victim = structuredClone(requests.Victim ?? {}) as { properties: Record<string, Json> };
  for (const field of ["name", "nameVariants", "age", "ageRange", "place", "notes"]) {
    const schema = victim.properties[field];
    if (schema) victim.properties[field] = sealedOr(schema);
  }
  const data = structuredClone(requests.VictimsRecordedData ?? {}) as { properties: Record<string, Json> };
  data.properties.victims = { ...data.properties.victims, items: ref("StoredVictim") };
  return { StoredAttribution: attribution, StoredVictim: victim, StoredVictimsRecordedData: data };
}

export const paths: Record<string, Json> = {
  "/incidents/{incidentId}/events/{eventId}/disclosures": {
    get: {
      operationId: "getEventDisclosures",
      tags,
      summary: "The disclosures of an event's sealed values",
      description:
        "The public disclosures for anyone; restricted ones too for a `restricted-reader` (`Authorization: Bearer …`), each such read recorded (who, which pointers, when), and answered `Cache-Control: private, no-store`. Each item opens the commitment at its pointer in the stored event: base64url-decode it, check `[salt, pointer, value]`, and compare `sha-256:` + base64url(SHA-256(disclosure)) with `$sealed`. Erased values are never listed.",
      security: [],
      parameters: [
        { name: "incidentId", in: "path", required: true, schema: ref("IncidentId") },
        { name: "eventId", in: "path", required: true, schema: { type: "string" } },
      ],
      responses: {
        "200": {
          description: "The disclosures this caller may read, in the event's document order.",
          headers: {
            "Cache-Control": {
              description:
                "`private, no-store` when the caller is signed in; `no-cache` otherwise (a withheld value leaves every cache at once).",
              required: true,
              schema: { type: "string" },
            },
          },
          content: { "application/json": { schema: ref("DisclosureList") } },
        },
        "400": unknownQuery,
        "401": problem("An Authorization header that names no user of this archive."),
        "404": problem("Unknown incident, or no such event in it."),
        "500": problem("The archive could not answer."),
      },
    },
  },
  "/export/disclosures.ndjson": {
    get: {
      operationId: "exportDisclosures",
      tags: ["Feed and exports"],
      summary: "Every public disclosure, one JSON object a line",
      description:
        "`{ incidentId, eventId, pointer, disclosure }` per line, for mirrors: read live (never a stored file), so a value withheld or erased leaves the next download. A mirror should drop what a later download no longer lists. Events in the other exports and the feed carry commitments only.",
      security: [],
      parameters: [
        {
          name: "treeSize",
          in: "query",
          required: false,
          description:
            "Only disclosures of events among the log's first N leaves (a release's link): those public at N and still held. Which pointers were public at N the first N leaves say (`disclose` marks, `RedactionApplied` events).",
          schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        },
      ],
      responses: {
        "200": {
          description: "NDJSON.",
          content: { "application/x-ndjson": { schema: { type: "string" } } },
        },
        "307": {
          description:
            "AWS: the same download from the exports function (streamed there, past API Gateway's 6 MB), the query as given.",
          headers: {
            Location: {
              description: "The exports function's URL of this export.",
              required: true,
              schema: { type: "string" },
            },
          },
        },
        "400": problem(
          "treeSize is not a number or is beyond the log, or another query parameter was given.",
        ),
        "500": problem("The archive could not answer."),
      },
    },
  },
};
