import { describe, expect, it } from "vitest";
import {
  ATTRIBUTIONS_KEPT,
  allAttributions,
  EditorialRows,
  FIELD_HISTORY_KEPT,
  LINKS_KEPT,
  ownLinks,
} from "./editorial.js";
import type { Envelope } from "./schemas.js";
import type { IncidentState } from "./summary.js";
import { fold } from "./summary.js";
import {
  AP,
  by,
  casualties,
  denial,
  exact,
  given,
  INCIDENT,
  opened,
  retraction,
  sealAll,
} from "./test-kit.js";
import { parseEnvelope } from "./validate.js";

const EDITORS = { publisher: "incident-ledger" };
const revised = (eventId: string, data: Record<string, unknown>): Envelope =>
  ({ eventId, type: "IncidentRevised", source: EDITORS, attributedTo: by("editors"), data }) as Envelope;
const graded = (eventId: string, grade: string): Envelope =>
  ({
    eventId,
    type: "IncidentGraded",
    source: EDITORS,
    attributedTo: by("editors"),
    data: { scale: "ledger", grade },
  }) as Envelope;
const attributed = (eventId: string, name: string, certainty: string): Envelope =>
  ({
    eventId,
    type: "AttributionAssessed",
    source: EDITORS,
    attributedTo: by("editors"),
    data: { perpetrator: { name }, certainty },
  }) as Envelope;
const linked = (eventId: string, otherIncidentId: string, relation: string): Envelope =>
  ({
    eventId,
    type: "IncidentsLinked",
    source: EDITORS,
    attributedTo: by("editors"),
    data: { otherIncidentId, relation },
  }) as Envelope;

describe("IncidentRevised", () => {
  it("given an opening, when a revision corrects the title and the place, then the summary shows them and the revising version", () => {
    given(opened())
      .when(
        revised("rev-1", {
          title: "Strike on the station",
          location: { name: "Station", country: "UA", precision: "exact" },
        }),
      )
      .then((s, state) => {
        expect(s).toMatchObject({
          title: "Strike on the station",
          location: { precision: "exact" },
          revisedInVersion: 2,
          revisions: 1,
        });
        expect(state.editorial?.history.title?.recent.map((c) => [c.version, c.value])).toEqual([
          [1, "Missile strike on Kramatorsk railway station"],
          [2, "Strike on the station"],
        ]);
      });
  });

  it("given an opening with a day and an envelope's time of another day, then the day is when it happened, the envelope's time none", () => {
    given({ ...opened(), occurredAt: "2022-04-09T08:00:00Z" })
      .when()
      .then((s) => expect(s).toMatchObject({ occurredOn: "2022-04-08", occurredAt: null }));
    const { occurredOn: _day, ...timeless } = opened().data as Record<string, unknown>;
    given({ ...opened(), data: timeless, occurredAt: "2022-04-09T08:00:00Z" } as Envelope)
      .when()
      .then((s) => expect(s).toMatchObject({ occurredOn: null, occurredAt: "2022-04-09T08:00:00Z" }));
  });

  it("given a coded precision, when a revision withdraws it (null), then the date is no longer coded and its history says so", () => {
    const coded = {
      ...opened(),
      data: { ...(opened().data as Record<string, unknown>), timePrecision: "day" },
    };
    expect(parseEnvelope(revised("rev-clear", { timePrecision: null })).ok).toBe(true);
    given(coded as Envelope)
      .when(revised("rev-clear", { timePrecision: null }))
      .then((s, state) => {
        expect(s.timePrecision).toBeNull();
        expect(state.editorial?.history.timePrecision?.recent.map((c) => c.value)).toEqual(["day", null]);
      });
    // Only the precision may be withdrawn so: a title is replaced, never emptied.
    expect(parseEnvelope(revised("rev-no-title", { title: null })).ok).toBe(false);
  });

  it("given a day, when a revision gives a time, then the day is cleared and both fields' histories say so", () => {
    given(opened())
      .when(revised("rev-1", { occurredAt: "2022-04-08T10:30:00+03:00" }))
      .then((s, state) => {
        expect(s).toMatchObject({ occurredAt: "2022-04-08T10:30:00+03:00", occurredOn: null });
        expect(state.editorial?.history.occurredOn?.recent.map((c) => c.value)).toEqual(["2022-04-08", null]);
      });
  });

  it("given many revisions of one field, then its history keeps the newest ones and counts them all", () => {
    const revisions = Array.from({ length: FIELD_HISTORY_KEPT + 5 }, (_, i) =>
      revised(`rev-${i}`, { title: `Title ${i}` }),
    );
    given(opened())
      .when(...revisions)
      .then((s, state) => {
        const h = state.editorial?.history.title;
        expect(h?.changes).toBe(FIELD_HISTORY_KEPT + 5);
        expect(h?.recent).toHaveLength(FIELD_HISTORY_KEPT);
        expect(s.title).toBe(`Title ${FIELD_HISTORY_KEPT + 4}`);
      });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["no field", {}, "data"],
    [
      "occurredAt and occurredOn both",
      { occurredAt: "2022-04-08T10:00:00Z", occurredOn: "2022-04-08" },
      "data.occurredOn",
    ],
    [
      "an end before its start",
      { occurredOn: "2022-04-08", occurredUntil: "2022-04-07T23:59:59Z" },
      "data.occurredUntil",
    ],
    ["a precision outside the list", { timePrecision: "hour" }, "data.timePrecision"],
  ])("given a revision with %s, then validation refuses it naming the field", (_what, data, path) => {
    const parsed = parseEnvelope(revised("revision-bad", data));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => e.path)).toContain(path);
  });

  it("given an end on the day of an instant start, then it is not before the start (a date runs to its day's end)", () => {
    expect(
      parseEnvelope(
        revised("revision-ok", { occurredAt: "2022-04-08T22:00:00Z", occurredUntil: "2022-04-08" }),
      ).ok,
    ).toBe(true);
  });
});

describe("grades, attributions and links", () => {
  it("given a live denial, then the suggested grade is contested; when it is retracted, single-source", () => {
    given(opened(), casualties("c1", "Governor", { killed: exact(5) }), denial("d1"))
      .when()
      .then((s) => expect(s.grade).toEqual({ given: null, suggested: "contested", count: 0 }));
    given(opened(), casualties("c1", "Governor", { killed: exact(5) }), denial("d1"))
      .when(retraction("r1", "d1"))
      .then((s) => expect(s.grade.suggested).toBe("single-source"));
  });

  it("given two sources of the same publisher, then it is not corroborated; of different publishers, it is", () => {
    given(
      opened(),
      casualties("c1", "Governor", { killed: exact(5) }),
      casualties("c2", "Police", { killed: exact(6) }),
    )
      .when()
      .then((s) => expect(s.grade.suggested).toBe("single-source"));
    given(opened(), casualties("c1", "Governor", { killed: exact(5) }))
      .when({
        ...casualties("c2", "Police", { killed: exact(6) }),
        source: { publisher: "Reuters" },
      } as Envelope)
      .then((s) => expect(s.grade.suggested).toBe("corroborated"));
  });

  it("given two grades, then the latest is the one given", () => {
    given(opened(), graded("g1", "single-source"))
      .when(graded("g2", "confirmed"))
      .then((s) => expect(s.grade).toMatchObject({ given: { grade: "confirmed", eventId: "g2" }, count: 2 }));
  });

  it("given a perpetrator assessed twice, then only the later assessment shows, beside other perpetrators", () => {
    given(opened(), attributed("a1", "Force X", "low"), attributed("a2", "Force Y", "medium"))
      .when(attributed("a3", " Force  X ", "high"))
      .then((s) => {
        expect(s.attributions.count).toBe(3);
        expect(s.attributions.latest.map((a) => [a.perpetrator.name, a.certainty])).toEqual([
          [" Force  X ", "high"],
          ["Force Y", "medium"],
        ]);
      });
  });

  it("given more perpetrators than the summary keeps, then it keeps the most recent", () => {
    const many = Array.from({ length: ATTRIBUTIONS_KEPT + 3 }, (_, i) =>
      attributed(`a${i}`, `Group ${i}`, "low"),
    );
    given(opened())
      .when(...many)
      .then((s) => {
        expect(s.attributions.latest).toHaveLength(ATTRIBUTIONS_KEPT);
        expect(s.attributions.latest[0]?.perpetrator.name).toBe(`Group ${ATTRIBUTIONS_KEPT + 2}`);
      });
  });

  it("given a link, when the same link comes again, then it is kept once; a new relation replaces it", () => {
    given(opened(), linked("l1", "other-incident", "same-event"))
      .when(linked("l2", "other-incident", "same-event"))
      .then((s) =>
        expect(s.links).toMatchObject({ count: 1, items: [{ eventId: "l1", relation: "same-event" }] }),
      );
    given(opened(), linked("l1", "other-incident", "same-event"))
      .when(linked("l2", "other-incident", "duplicate-of"))
      .then((s) =>
        expect(s.links).toMatchObject({ count: 1, items: [{ eventId: "l2", relation: "duplicate-of" }] }),
      );
  });

  it("given an editorial judgement, when a retraction names it, then the append rules refuse it", () => {
    given(opened(), graded("g1", "confirmed"))
      .whenAppending([{ ...retraction("r1", "g1"), source: AP }])
      .then((breach) => expect(breach).toMatchObject({ kind: "bad-target" }));
  });
});

describe("EditorialRows", () => {
  it("given more perpetrators and links than the state keeps, when folded one by one, then it holds each one's current row", () => {
    const events = sealAll([
      opened(),
      ...Array.from({ length: ATTRIBUTIONS_KEPT + 2 }, (_, i) => attributed(`a${i}`, `Group ${i}`, "low")),
      attributed("a0-again", "Group 0", "high"),
      ...Array.from({ length: LINKS_KEPT + 2 }, (_, i) => linked(`l${i}`, `other-${i}`, "related")),
      linked("l0-again", "other-0", "part-of"),
      // The same link again changes nothing: the row stays the first one.
      linked("l101-again", `other-${LINKS_KEPT + 1}`, "related"),
      graded("g1", "corroborated"),
    ]);
    const rows = new EditorialRows();
    let state: IncidentState | undefined;
    for (const [i, event] of events.entries()) {
      state = fold(INCIDENT, [event], state, events.slice(0, i));
      rows.note(state.editorial, event);
    }
    expect(state?.editorial?.attributions).toHaveLength(ATTRIBUTIONS_KEPT);
    expect(rows.attributions).toHaveLength(ATTRIBUTIONS_KEPT + 2);
    expect(rows.attributions.find((a) => a.perpetrator.name === "Group 0")).toMatchObject({
      eventId: "a0-again",
      certainty: "high",
    });
    expect(rows.links).toHaveLength(LINKS_KEPT + 2);
    expect(rows.links.find((l) => l.otherIncidentId === "other-0")).toMatchObject({
      eventId: "l0-again",
      relation: "part-of",
    });
    expect(rows.links.find((l) => l.otherIncidentId === `other-${LINKS_KEPT + 1}`)?.eventId).toBe(
      `l${LINKS_KEPT + 1}`,
    );
  });
});

describe("allAttributions and ownLinks", () => {
  const made = { eventId: "e", recordedAt: "2026-01-01T00:00:00Z", attributedTo: { name: "editors" } };
  const attribution = (name: string, version: number, certainty: "low" | "high") => ({
    ...made,
    version,
    perpetrator: { name },
    certainty,
  });
  const link = (otherIncidentId: string, version: number) => ({
    ...made,
    version,
    otherIncidentId,
    relation: "related" as const,
  });

  it("given the state and an index that each hold a newer row of some key, then each key shows its newer row, most recent first", () => {
    const kept = [attribution("Unit A", 5, "high"), attribution("Unit B", 2, "low")];
    const indexed = [
      attribution("Unit A", 3, "low"),
      attribution("Unit B", 7, "high"),
      attribution("Unit C", 1, "low"),
    ];
    expect(allAttributions(kept, indexed).map((a) => [a.perpetrator.name, a.version])).toEqual([
      ["Unit B", 7],
      ["Unit A", 5],
      ["Unit C", 1],
    ]);
    const links = ownLinks([link("x", 4)], [link("x", 2), link("y", 1)]);
    expect(links.map((l) => [l.otherIncidentId, l.version]).sort()).toEqual([
      ["x", 4],
      ["y", 1],
    ]);
  });
});
