import { describe, expect, it } from "vitest";
import type { Envelope } from "./schemas.js";
import { AP, by, given, opened, retraction } from "./test-kit.js";
import { LISTS_KEPT, MAX_LINKS_KEPT } from "./victims.js";

const list = (eventId: string, victims: Record<string, unknown>[]): Envelope =>
  ({
    eventId,
    type: "VictimsRecorded",
    source: AP,
    attributedTo: by("Registry"),
    data: { victims },
  }) as Envelope;
const link = (
  eventId: string,
  a: [string, number],
  b: [string, number],
  relation = "same-person",
): Envelope =>
  ({
    eventId,
    type: "VictimsLinked",
    source: AP,
    attributedTo: by("Archive editors"),
    data: {
      a: { eventId: a[0], index: a[1] },
      b: { eventId: b[0], index: b[1] },
      relation,
      certainty: "high",
    },
  }) as Envelope;

const three = [
  { name: { $sealed: "sha-256:a" }, sex: "female", status: "civilian", ageGroup: "adult" },
  { name: { $sealed: "sha-256:b" }, sex: "male", status: "civilian" },
  { sex: "male", ageGroup: "child" },
];

describe("the summary's victims block", () => {
  it("given no victims, then every count is zero", () => {
    given(opened())
      .when()
      .then((s) => {
        expect(s.victims).toEqual({
          recorded: 0,
          distinct: 0,
          byStatus: {},
          bySex: {},
          byAgeGroup: {},
          named: 0,
        });
      });
  });

  it("given a list, then it counts entries by status, sex and age group, and the named ones", () => {
    given(opened())
      .when(list("list-one-1", three))
      .then((s) => {
        expect(s.victims).toEqual({
          recorded: 3,
          distinct: 3,
          byStatus: { civilian: 2, unknown: 1 },
          bySex: { female: 1, male: 2 },
          byAgeGroup: { adult: 1, unknown: 1, child: 1 },
          named: 2,
        });
      });
  });

  it("when entries are linked as the same person, transitively, then distinct merges them; not-same-person does not", () => {
    given(opened(), list("list-one-1", three), list("list-two-1", three))
      .when(
        link("link-one-01", ["list-one-1", 0], ["list-two-1", 0]),
        link("link-two-01", ["list-two-1", 0], ["list-one-1", 1]),
        link("link-three1", ["list-one-1", 1], ["list-one-1", 0]),
        link("link-four-1", ["list-one-1", 2], ["list-two-1", 2], "not-same-person"),
      )
      .then((s) => {
        expect(s.victims.recorded).toBe(6);
        expect(s.victims.distinct).toBe(4);
      });
  });

  it("when a link is retracted, then its entries count apart again; when a list is retracted, it no longer counts", () => {
    const history = [
      opened(),
      list("list-one-1", three),
      list("list-two-1", three),
      link("link-one-01", ["list-one-1", 0], ["list-two-1", 0]),
    ];
    given(...history)
      .when(retraction("retract-link", "link-one-01"))
      .then((s) => expect(s.victims.distinct).toBe(6));
    given(...history)
      .when(retraction("retract-list", "list-two-1"))
      .then((s, state) => {
        expect(s.victims).toMatchObject({
          recorded: 3,
          distinct: 3,
          named: 2,
          bySex: { female: 1, male: 2 },
        });
        expect(state.victims?.links).toEqual([]);
        expect(state.victims?.lists?.map((l) => l.eventId)).toEqual(["list-one-1"]);
      });
  });

  it("when a link names an entry of a retracted list, then it merges nothing: distinct counts the live entries", () => {
    given(
      opened(),
      list("list-x-0001", [{ sex: "male" }, { sex: "female" }]),
      list("list-y-0001", [{ sex: "male" }]),
      retraction("retract-y-01", "list-y-0001"),
    )
      .when(
        link("link-x0-y0-1", ["list-x-0001", 0], ["list-y-0001", 0]),
        link("link-x1-y0-1", ["list-x-0001", 1], ["list-y-0001", 0]),
      )
      .then((s, state) => {
        expect(s.victims).toMatchObject({ recorded: 2, distinct: 2 });
        expect(state.victims?.links).toEqual([]);
      });
  });

  it("when a pair is judged again, then the latest judgement holds: not-same-person parts what same-person merged, and its retraction merges it again", () => {
    const merged = [
      opened(),
      list("list-one-1", three),
      list("list-two-1", three),
      link("link-one-01", ["list-one-1", 0], ["list-two-1", 0]),
    ];
    // Named the other way round: the same pair.
    const parted = link("link-apart-1", ["list-two-1", 0], ["list-one-1", 0], "not-same-person");
    given(...merged)
      .when(parted)
      .then((s) => expect(s.victims.distinct).toBe(6));
    given(...merged, parted)
      .when(retraction("retract-apart", "link-apart-1"))
      .then((s) => expect(s.victims.distinct).toBe(5));
    given(...merged, parted)
      .when(link("link-again-1", ["list-one-1", 0], ["list-two-1", 0]))
      .then((s) => expect(s.victims.distinct).toBe(5));
  });

  it("when the kept links are full, then a not-same-person still parts its pair", () => {
    const many = Array.from({ length: MAX_LINKS_KEPT }, () => ({ sex: "male" }));
    const links = many.map((_, i) =>
      link(`link-full-${String(i).padStart(3, "0")}`, ["list-one-1", i], ["list-two-1", i]),
    );
    given(opened(), list("list-one-1", many), list("list-two-1", many), ...links)
      .when(link("link-apart-1", ["list-one-1", 7], ["list-two-1", 7], "not-same-person"))
      .then((s, state) => {
        expect(s.victims).toMatchObject({ recorded: 2 * MAX_LINKS_KEPT, distinct: MAX_LINKS_KEPT + 1 });
        expect(state.victims?.links.length).toBeLessThanOrEqual(MAX_LINKS_KEPT);
      });
  });

  it("keeps its state bounded: the latest lists only, and links up to a cap", () => {
    const lists = Array.from({ length: LISTS_KEPT + 3 }, (_, i) => list(`list-${i}-xxxx`, [{ sex: "male" }]));
    given(opened(), ...lists)
      .when()
      .then((s, state) => {
        expect(s.victims.recorded).toBe(LISTS_KEPT + 3);
        expect(state.victims?.lists).toHaveLength(LISTS_KEPT);
      });
    expect(MAX_LINKS_KEPT).toBeLessThanOrEqual(500);
  });

  it("never holds a sealed value: the block is counts", () => {
    given(opened(), list("list-one-1", three))
      .when()
      .then((s) => expect(JSON.stringify(s.victims)).not.toContain("sha-256"));
  });
});
