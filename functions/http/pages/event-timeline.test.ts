import { jsx } from "hono/jsx";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, type EventType } from "../../../events/schemas.js";
import type { StoredEvent } from "../../../events/stored-event.js";
import { EventBody, EventTimeline } from "./event-timeline.js";

/** One stored event of each type's data, as the timeline gets it (sealed values as commitments). */
const SEALED = { $sealed: "Y29tbWl0bWVudC1vZi1hLW5hbWU" };
const DATA: Record<EventType, Record<string, unknown>> = {
  IncidentOpened: {
    title: "Strike on the station",
    kind: "missile-strike",
    location: { name: "Kramatorsk", country: "UA" },
  },
  CasualtiesReported: { figures: { killed: { value: 50, qualifier: "at-least" } } },
  StatementMade: { quote: "We condemn it.", stance: "condemns" },
  DenialIssued: { claim: "our forces used that missile" },
  ClaimAssessed: {
    targetEventId: "ev-target-01",
    verdict: "disputed",
    reasoning: "The serial says otherwise.",
  },
  ReportRetracted: { targetEventId: "ev-target-01", reason: "misattributed" },
  IncidentRevised: {
    title: "Strike on Kramatorsk station",
    occurredOn: "2022-04-08",
    description: "Longer.",
  },
  IncidentGraded: { scale: "ledger", grade: "corroborated", reasoning: "Two publishers." },
  AttributionAssessed: {
    perpetrator: { name: "Unit 1", side: "Side A" },
    certainty: "medium",
    reasoning: "Debris.",
  },
  IncidentsLinked: { otherIncidentId: "other-incident-2022", relation: "duplicate-of" },
  VictimsRecorded: { victims: [{ name: SEALED, status: "civilian" }, { sex: "female" }] },
  VictimsLinked: {
    a: { eventId: "ev-victims-01", index: 0 },
    b: { eventId: "ev-victims-02", index: 1 },
    relation: "same-person",
    certainty: "high",
  },
  RedactionApplied: {
    targetEventId: "ev-victims-01",
    pointers: ["/data/victims/0/name", "/data/victims/0/place"],
    effect: "erased",
    reason: "data-subject-request",
    legalBasis: "GDPR Art. 17",
    requestRef: "DSR-2026-14",
  },
  EvidenceCaptured: { kind: "image", size: 10, mediaType: "image/png", sha256: "a".repeat(64) },
};

const eventOf = (type: EventType): StoredEvent =>
  ({
    incidentId: "timeline-incident",
    eventId: `ev-${type}`,
    type,
    version: 2,
    data: DATA[type],
    source: { publisher: "Test Wire" },
    recordedAt: "2026-01-01T00:00:00Z",
    recordedBy: "tester",
  }) as unknown as StoredEvent;

const bodyOf = async (type: EventType) => String(await jsx(EventBody, { event: eventOf(type) }).toString());

describe("the timeline's entry for each event type", () => {
  it("given an event of every type, when shown, then each says what it recorded", async () => {
    for (const type of EVENT_TYPES) expect(await bodyOf(type), type).toMatch(/class="ev-body"/);
  });

  it("given a redaction, then its effect, fields, target and reasons, and never a value", async () => {
    const body = await bodyOf("RedactionApplied");
    expect(body).toContain("Erased 2 values of");
    expect(body).toContain('href="#ev-ev-victims-01"');
    for (const text of [
      "/data/victims/0/name",
      "/data/victims/0/place",
      "data-subject-request",
      "GDPR Art. 17",
      "DSR-2026-14",
    ])
      expect(body).toContain(text);
  });

  it("given victims with a sealed name, then their count, never the commitment", async () => {
    const body = await bodyOf("VictimsRecorded");
    expect(body).toContain("2 people listed");
    expect(body).not.toContain(SEALED.$sealed);
  });

  it("given a revision, then the fields it replaced", async () => {
    const body = await bodyOf("IncidentRevised");
    expect(body).toContain("Strike on Kramatorsk station");
    expect(body).toContain("occurredOn 2022-04-08");
    expect(body).toContain("description rewritten");
  });
});

describe("when each event says it happened", () => {
  /** The "Occurred" entry of each event's line, in version order. */
  const occurredOf = async (...events: StoredEvent[]) => {
    const page = { events, total: events.length, newerHref: null, olderHref: null };
    const html = String(
      await jsx(EventTimeline, { incidentId: "timeline-incident", page, retracted: new Set() }).toString(),
    );
    return [...html.matchAll(/<dt>Occurred<\/dt><dd>(.*?)<\/dd>/g)].map((m) => m[1]).reverse();
  };
  const at = (type: EventType, version: number, data: Record<string, unknown>, occurredAt?: string) =>
    ({
      ...eventOf(type),
      eventId: `ev-${type}-${version}`,
      version,
      data: { ...DATA[type], ...data },
      ...(occurredAt ? { occurredAt } : {}),
    }) as StoredEvent;

  it("given an opening whose data gives its day or its time, then the timeline shows it, as the page's header does", async () => {
    expect(
      await occurredOf(
        at("IncidentOpened", 1, { occurredOn: "2022-04-08" }),
        at("IncidentOpened", 2, { occurredAt: "2022-04-08T10:30:00+03:00" }),
        at("IncidentOpened", 3, { occurredOn: "2022-02-24", occurredUntil: "2022-05-20" }),
      ),
    ).toEqual([
      '<time datetime="2022-04-08">2022-04-08</time>',
      '<time datetime="2022-04-08T10:30:00+03:00">2022-04-08T10:30:00+03:00</time>',
      '<time datetime="2022-02-24">2022-02-24 – 2022-05-20</time>',
    ]);
  });

  it("given an opening of schema version 1 with its time on the envelope, or one giving none, then the envelope's time, or not stated", async () => {
    expect(
      await occurredOf(at("IncidentOpened", 1, {}, "2022-04-08T09:00:00Z"), at("IncidentOpened", 2, {})),
    ).toEqual(['<time datetime="2022-04-08T09:00:00Z">2022-04-08T09:00:00Z</time>', "not stated"]);
  });

  it("given a revision that gives a start, then that start; one that gives none, then its envelope's time", async () => {
    expect(
      await occurredOf(
        at("IncidentRevised", 2, {}),
        at("IncidentRevised", 3, { occurredOn: undefined, occurredAt: "2022-04-08T10:30:00Z" }),
        at("IncidentRevised", 4, { occurredOn: undefined, title: "Renamed" }, "2022-04-09T08:00:00Z"),
      ),
    ).toEqual([
      '<time datetime="2022-04-08">2022-04-08</time>',
      '<time datetime="2022-04-08T10:30:00Z">2022-04-08T10:30:00Z</time>',
      '<time datetime="2022-04-09T08:00:00Z">2022-04-09T08:00:00Z</time>',
    ]);
  });

  it("given a report with its own occurredAt, then that time", async () => {
    expect(await occurredOf(at("CasualtiesReported", 2, {}, "2022-04-08T11:00:00Z"))).toEqual([
      '<time datetime="2022-04-08T11:00:00Z">2022-04-08T11:00:00Z</time>',
    ]);
  });
});
