import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, opened, post, startArchive, TOKEN } from "../support/archive.js";
import { DocumentSampler } from "../support/openapi-sampler.js";

/**
 * Requests drawn from the document's request schemas: what the document calls valid is
 * accepted, what it calls invalid is refused with a 4xx and stores nothing. The few rules the
 * document states in words (an incident must exist before other events; a target must be an
 * event of the incident; a range's min ≤ max; eventIds are unique) are met by fitting each
 * drawn event to the archive's state before the document judges it — never after.
 */
type Json = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: drawn values are arbitrary JSON, edited in place.
type Drawn = any;

const BASE = "fuzz-base-incident";
const TARGET = "fuzz-target-statement";
/** Incidents a drawn IncidentsLinked may name (it must name an existing other one, and never the same link twice). */
const OTHERS = Array.from({ length: 40 }, (_, i) => `fuzz-other-${i}`);
const linksMade = new Set<string>();
const VICTIMS = "fuzz-target-victims";
/** Each drawn redaction names a victim of its own: an erased value cannot be redacted again (422). */
let redactions = 0;
/** Evidence bytes held, and captured in BASE: what a drawn capture or evidence list is fitted to. */
const EVIDENCE = "<html>fuzz evidence</html>";
const EVIDENCE_SHA256 = createHash("sha256").update(EVIDENCE).digest("hex");
const ENVELOPE = { $ref: "#/components/schemas/EventEnvelope" };
const BODY = { oneOf: [ENVELOPE, { $ref: "#/components/schemas/EventBatch" }] };

let archive: LocalServer;
let sampler: DocumentSampler;
let fresh = 0;

beforeAll(async () => {
  archive = await startArchive();
  sampler = new DocumentSampler((await call(archive.url, "GET", "/openapi.json")).body as Json);
  expect((await post(archive.url, BASE, opened("fuzz-base-opened"))).status).toBe(201);
  const statement = {
    eventId: TARGET,
    type: "StatementMade",
    source: { publisher: "Fuzz Wire" },
    attributedTo: { name: "A spokesperson" },
    data: { quote: "Something was said.", stance: "neutral" },
  };
  expect((await post(archive.url, BASE, statement)).status).toBe(201);
  for (const other of OTHERS) expect((await post(archive.url, other, opened())).status).toBe(201);
  const victims = {
    eventId: VICTIMS,
    type: "VictimsRecorded",
    source: { publisher: "Fuzz Wire" },
    attributedTo: { name: "A registry" },
    data: { victims: Array.from({ length: 500 }, (_, i) => ({ name: `Victim ${i}` })) },
  };
  expect((await post(archive.url, BASE, victims)).status).toBe(201);
  const held = await fetch(`${archive.url}/evidence`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/html" },
    body: EVIDENCE,
  });
  expect(held.status).toBe(201);
  const captured = {
    type: "EvidenceCaptured",
    source: { publisher: "Fuzz Wire" },
    data: { sha256: EVIDENCE_SHA256, size: EVIDENCE.length, mediaType: "text/html", kind: "web-page" },
  };
  expect((await post(archive.url, BASE, captured)).status).toBe(201);
});
afterAll(async () => {
  await archive?.close();
});

/** Meets the rules the document states in words, so that its schema alone decides. */
function fitToArchive(event: Drawn, n: number): Drawn {
  if (typeof event?.eventId === "string") event.eventId = `fz-${n}-${event.eventId}`.slice(0, 64);
  if (typeof event?.data?.targetEventId === "string") event.data.targetEventId = TARGET;
  if (typeof event?.data?.otherIncidentId === "string") {
    const relation = event.data.relation;
    const other = OTHERS.find((o) => !linksMade.has(`${o} ${relation}`)) ?? (OTHERS[0] as string);
    linksMade.add(`${other} ${relation}`);
    event.data.otherIncidentId = other;
  }
  // An end never before any start the incident has or is given, and never without one (the rules
  // the document states in words).
  if (typeof event?.data?.occurredUntil === "string") {
    event.data.occurredUntil = "9999-12-31";
    if (event.data.occurredAt === undefined && event.data.occurredOn === undefined && !event.occurredAt)
      event.data.occurredOn = "2000-01-01";
  }
  // The people's rules in words (issue 22): links name existing entries of a live list,
  // redactions pointers with a disclosure not yet erased, disclose marks values the event seals,
  // a private person has a ref.
  if (event?.type === "VictimsLinked" && event.data?.a && event.data?.b) {
    event.data.a = { eventId: VICTIMS, index: 0 };
    event.data.b = { eventId: VICTIMS, index: 1 };
  }
  if (event?.type === "RedactionApplied" && event.data) {
    event.data.targetEventId = VICTIMS;
    if (Array.isArray(event.data.pointers)) event.data.pointers = [`/data/victims/${redactions++}/name`];
  }
  if (event?.type === "VictimsRecorded" && event.data?.disclose) delete event.data.disclose;
  if (event?.attributedTo?.kind === "private" && event.attributedTo.ref === undefined)
    event.attributedTo.ref = "fuzz-ref";
  // Bytes must be held, and an evidence list must name this incident's captures.
  if (event?.type === "EvidenceCaptured" && typeof event.data === "object" && event.data !== null) {
    Object.assign(event.data, { sha256: EVIDENCE_SHA256, size: EVIDENCE.length });
  }
  if (Array.isArray(event?.evidence)) event.evidence = [EVIDENCE_SHA256];
  for (const figure of Object.values<Drawn>(event?.data?.figures ?? {})) {
    if (typeof figure?.min === "number" && typeof figure?.max === "number" && figure.min > figure.max) {
      [figure.min, figure.max] = [figure.max, figure.min];
    }
  }
  return event;
}

/** Ways to break a valid event that the document's schema must see (each is a field the server names). */
const BREAKS: Record<string, (e: Drawn) => void> = {
  "blank publisher": (e) => {
    e.source.publisher = " \t ";
  },
  "no source": (e) => {
    delete e.source;
  },
  "unknown field": (e) => {
    e.colour = "red";
  },
  "unknown type": (e) => {
    e.type = "RumourHeard";
  },
  "data not an object": (e) => {
    e.data = ["x"];
  },
  "control character": (e) => {
    e.source.publisher = "Wire\u0007";
  },
  "empty figures or both occurredAt and occurredOn": (e) => {
    if (e.type === "CasualtiesReported") e.data.figures = {};
    else if (e.type === "IncidentOpened")
      Object.assign(e.data, { occurredAt: "2022-04-08T09:00:00Z", occurredOn: "2022-04-08" });
    else e.data = {};
  },
};

async function versionOf(incidentId: string): Promise<number> {
  const answer = await call(archive.url, "GET", `/incidents/${incidentId}/verify`);
  return answer.status === 404 ? 0 : answer.body.version;
}

describe("requests drawn from the document", () => {
  it("an event the document calls valid is stored (201); one it calls invalid is refused with 4xx", async () => {
    const seen = { accepted: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.option(fc.constantFrom(...Object.keys(BREAKS)), { freq: 3 }),
        fc.boolean(),
        async (seed, brokenBy, withIfMatch) => {
          fresh += 1;
          const event = fitToArchive(sampler.sample(ENVELOPE, seed), fresh);
          if (brokenBy) (BREAKS[brokenBy] as (e: Drawn) => void)(event);
          const opening = event.type === "IncidentOpened";
          const incidentId = opening ? `fuzz-fresh-${fresh}` : BASE;
          const before = await versionOf(incidentId);
          const headers: Record<string, string> = withIfMatch ? { "if-match": `"${before}"` } : {};
          const verdict = sampler.errors(BODY, event);
          const answer = await post(archive.url, incidentId, event, headers);
          const summary = `${JSON.stringify(event)} → ${answer.status} ${JSON.stringify(answer.body)}; document: ${verdict.join("; ")}`;
          if (verdict.length === 0) {
            expect(brokenBy, summary).toBeNull();
            expect(answer.status, summary).toBe(201);
            seen.accepted += 1;
          } else {
            expect([400, 409, 422], summary).toContain(answer.status);
            expect(await versionOf(incidentId), summary).toBe(before);
            seen.refused += 1;
          }
        },
      ),
      { numRuns: 120 },
    );
    // Both sides of the property were exercised.
    expect(seen.accepted).toBeGreaterThan(20);
    expect(seen.refused).toBeGreaterThan(10);
  });

  it("a batch of drawn events the document calls valid is stored whole", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 4 }),
        async (seeds) => {
          const events = seeds
            .map((seed, i) => fitToArchive(sampler.sample(ENVELOPE, seed), fresh + i + 1))
            .filter((e) => e.type !== "IncidentOpened");
          fresh += seeds.length;
          fc.pre(events.length > 0);
          const body = { events };
          expect(sampler.errors(BODY, body)).toEqual([]);
          const before = await versionOf(BASE);
          const answer = await post(archive.url, BASE, body);
          expect(answer.status, JSON.stringify(answer.body)).toBe(201);
          expect(answer.body.version).toBe(before + events.length);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("query parameters drawn from each read's schemas: valid ones answer 200, invalid ones 400", async () => {
    const doc = (await call(archive.url, "GET", "/openapi.json")).body as Json;
    const reads: [string, string][] = [
      ["/incidents/{incidentId}", `/incidents/${BASE}`],
      ["/incidents", "/incidents"],
      ["/incidents/{incidentId}/events", `/incidents/${BASE}/events`],
      ["/incidents/{incidentId}/denials", `/incidents/${BASE}/denials`],
      ["/feed", "/feed"],
      ["/sources/{name}", "/sources/Fuzz%20Wire"],
      // The pages that list incidents: a form's blank field is "any", a bad one a 400 page.
      ["/", "/"],
      ["/map", "/map"],
    ];
    for (const [template, path] of reads) {
      const op = (doc.paths as Record<string, { get: { parameters: Json[] } }>)[template]?.get;
      // The cursor is opaque: only one the archive gave out is valid, as the document says.
      const params = (op?.parameters ?? []).filter((p) => p.in === "query" && p.name !== "cursor") as {
        name: string;
        schema: Json;
      }[];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...params),
          fc.integer({ min: 0, max: 2 ** 31 - 1 }),
          fc.boolean(),
          async (param, seed, garble) => {
            const drawn = sampler.sample(param.schema, seed);
            const value = garble ? `${String(drawn)}~` : String(drawn);
            // Query values are text: the document's number and boolean schemas judge their parsed form.
            const judged =
              param.schema.type === "integer" && /^\d+$/.test(value)
                ? Number(value)
                : param.schema.type === "boolean" && /^(true|false)$/.test(value)
                  ? value === "true"
                  : value;
            const valid = sampler.errors(param.schema, judged).length === 0;
            const answer = await call(
              archive.url,
              "GET",
              `${path}?${param.name}=${encodeURIComponent(value)}`,
            );
            const say = `${path}?${param.name}=${value} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
            // bbox's minimum ≤ maximum is a rule between its numbers, which the document states in words.
            const [w, s, e, n] = value.split(",").map(Number);
            const crossed =
              param.name === "bbox" && ((w as number) > (e as number) || (s as number) > (n as number));
            if (valid && crossed) expect(answer.status, say).toBe(400);
            else if (valid) expect([200, 404], say).toContain(answer.status);
            else expect(answer.status, say).toBe(400);
            // 404 only where the incident had not reached that point (a past or future version).
            if (answer.status === 404) expect(["version", "asOf", "minVersion"], say).toContain(param.name);
          },
        ),
        { numRuns: 40 },
      );
    }
  });
});
