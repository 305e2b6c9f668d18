import { describe, expect, it } from "vitest";
import { keysReversed } from "../test-kit.js";
import { parseEnvelope } from "../validate.js";
import { checkMapping, type Mapping, mappedRow } from "./mapping.js";

const HEADER = ["case", "day", "cc", "what", "outlet", "killed"];
const MAPPING = {
  incidentId: "{case}",
  events: [
    {
      type: "IncidentOpened",
      once: true,
      fields: {
        "source.publisher": "{outlet}",
        "data.title": "{what}",
        "data.kind": "shelling",
        "data.location.name": "{case} ({cc})",
        "data.location.country": "{cc}",
        "data.occurredOn": "{day}",
      },
    },
    {
      type: "CasualtiesReported",
      when: "killed",
      fields: {
        "source.publisher": "{outlet}",
        "attributedTo.name": "{outlet}",
        "data.figures.killed.value": { column: "killed", as: "integer" },
        "data.figures.killed.qualifier": "exact",
      },
    },
  ],
};

/** A row through the mapping, its events checked as the importer checks them, and told in columns. */
function refusalsOf(cells: Record<string, string>, mapping: unknown = MAPPING) {
  const checked = checkMapping(mapping, HEADER);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const row = mappedRow(checked.mapping as Mapping, { row: 1, line: 2, fields: cells }, new Set());
  if (!row.ok) throw new Error(JSON.stringify(row.errors));
  const errors = row.events.flatMap((event, i) => {
    const parsed = parseEnvelope(event, row.events.length > 1 ? ["events", i] : []);
    return parsed.ok ? [] : parsed.errors;
  });
  return row.explain ? row.explain(errors) : errors;
}

const GOOD = { case: "kramatorsk", day: "2022-04-08", cc: "UA", what: "Strike", outlet: "AP", killed: "5" };

describe("a mapped row's refusals, told in the file's columns", () => {
  it("given a bad day and country, then each error names its column, with the field it fills", () => {
    const errors = refusalsOf({ ...GOOD, day: "8 April", cc: "Ukraine" });
    expect(errors.map((e) => e.path).sort()).toEqual(["cc", "day"]);
    const day = errors.find((e) => e.path === "day");
    expect(day?.message).toMatch(/\(it fills data\.occurredOn of the IncidentOpened\)$/);
  });

  it("given one event only (no count), then the same columns, without an events[] prefix to read", () => {
    const errors = refusalsOf({ ...GOOD, killed: "", day: "yesterday" });
    expect(errors.map((e) => e.path)).toEqual(["day"]);
  });

  it("given a constant of the mapping the rules refuse, then its place in the mapping", () => {
    const mapping = structuredClone(MAPPING);
    const [, figure] = mapping.events;
    if (figure) figure.fields["data.figures.killed.qualifier"] = "roughly";
    const errors = refusalsOf(GOOD, mapping);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe("(mapping) events[1].fields.data.figures.killed.qualifier");
    expect(errors[0]?.message).toMatch(/^data\.figures\.killed\.qualifier of the CasualtiesReported /);
  });

  it("given a field the mapping does not fill, then the mapping's event, naming the field", () => {
    const mapping = structuredClone(MAPPING);
    const [opening] = mapping.events;
    if (opening) delete (opening.fields as Record<string, unknown>)["data.location.country"];
    const errors = refusalsOf({ ...GOOD, killed: "" }, mapping);
    expect(errors.map((e) => e.path)).toEqual(["(mapping) events[0]"]);
    expect(errors[0]?.message).toContain("data.location.country of the IncidentOpened");
  });
});

describe("a mapped row's event ids", () => {
  const idsOf = (mapping: unknown, cells: Record<string, string>) => {
    const checked = checkMapping(mapping, HEADER);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const row = mappedRow(checked.mapping, { row: 1, line: 2, fields: cells }, new Set());
    if (!row.ok) throw new Error(JSON.stringify(row.errors));
    return row.events.map((e) => e.eventId);
  };

  it("given the mapping written another way, or put right where it made no event of a row, then the same ids", () => {
    const ids = idsOf(MAPPING, GOOD);
    expect(new Set(ids).size).toBe(2);
    expect(idsOf(keysReversed(MAPPING), GOOD)).toEqual(ids);
    // A third event added: the first two keep their ids.
    const more = {
      ...MAPPING,
      events: [
        ...MAPPING.events,
        {
          type: "StatementMade",
          fields: {
            "source.publisher": "{outlet}",
            "attributedTo.name": "{outlet}",
            "data.quote": "{what}",
            "data.stance": "neutral",
          },
        },
      ],
    };
    expect(idsOf(more, GOOD).slice(0, 2)).toEqual(ids);
  });

  it("given what an event says changed, then its id changes; an opening keeps its id, named by its incident", () => {
    const [opening, figure] = idsOf(MAPPING, GOOD);
    const [openingAgain, revised] = idsOf(MAPPING, { ...GOOD, killed: "7", what: "Strike on a market" });
    expect(openingAgain).toBe(opening);
    expect(revised).not.toBe(figure);
  });

  it("given a key misspelt or a type unknown, refuses the mapping before any row, naming each", () => {
    const checked = checkMapping(
      {
        ...MAPPING,
        events: [
          { ...MAPPING.events[0], onec: true, once: undefined },
          { ...MAPPING.events[1], type: "CasualtyReported" },
        ],
      },
      HEADER,
    );
    expect(checked.ok ? [] : checked.errors.map((e) => e.path)).toEqual(["events[0].onec", "events[1].type"]);
  });

  it("given a field path its type does not have, refuses the mapping before any row, naming it", () => {
    const [opening, figure] = MAPPING.events as unknown as [Record<string, unknown>, Record<string, unknown>];
    const misspelt = {
      ...MAPPING,
      events: [
        { ...opening, fields: { ...(opening.fields as object), "data.titel": "{what}" } },
        { ...figure, fields: { ...(figure.fields as object), "data.figures.killed.valeu": "{killed}" } },
      ],
    };
    const checked = checkMapping(misspelt, HEADER);
    expect(checked.ok ? [] : checked.errors).toEqual([
      { path: "events[0].fields.data.titel", message: "is not a field of IncidentOpened" },
      { path: "events[1].fields.data.figures.killed.valeu", message: "is not a field of CasualtiesReported" },
    ]);
  });
});
