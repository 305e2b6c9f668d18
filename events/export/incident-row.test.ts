import { describe, expect, it } from "vitest";
import {
  about,
  atLeast,
  casualties,
  denial,
  exact,
  given,
  opened,
  retraction,
  statement,
} from "../test-kit.js";
import { INCIDENT_COLUMNS, INCIDENT_HEADER, incidentCells } from "./incident-row.js";

const cell = (cells: unknown[], column: string) => cells[INCIDENT_COLUMNS.indexOf(column)];

describe("incident rows", () => {
  it("has a header of unique names with low, high and sources per well-known category", () => {
    expect(new Set(INCIDENT_COLUMNS).size).toBe(INCIDENT_COLUMNS.length);
    for (const name of [
      "killed_low",
      "killed_high",
      "killed_sources",
      "childrenInjured_sources",
      "present_high",
    ])
      expect(INCIDENT_COLUMNS).toContain(name);
    expect(INCIDENT_HEADER.endsWith("\r\n")).toBe(true);
  });

  it("given two sources, one open-ended, when a row is made, then low is the largest lower bound and high is empty", () => {
    given(opened(), casualties("gov-toll", "Governor", { killed: exact(12) }))
      .when(casualties("police-toll", "Police", { killed: atLeast(15), present: about(4000) }))
      .then((summary) => {
        const cells = incidentCells(summary);
        expect(cells).toHaveLength(INCIDENT_COLUMNS.length);
        expect(cell(cells, "killed_low")).toBe(15);
        expect(cell(cells, "killed_high")).toBe(null);
        expect(cell(cells, "killed_sources")).toBe(2);
        expect(cell(cells, "present_low")).toBe(4000);
        expect(cell(cells, "present_high")).toBe(4000);
        expect(cell(cells, "injured_low")).toBe(null);
        expect(cell(cells, "injured_sources")).toBe(0);
        expect(cell(cells, "version")).toBe(3);
        expect(cell(cells, "country")).toBe("UA");
        expect(cell(cells, "occurred_on")).toBe("2022-04-08");
        expect(cell(cells, "head_hash")).toBe(summary.headHash);
      });
  });

  it("given a denial that is later retracted, when a row is made, then it is no longer contested and the retraction counts", () => {
    given(opened(), denial("peskov-denial"), statement("un-statement", "UN"))
      .when(retraction("retract-denial", "peskov-denial"))
      .then((summary) => {
        const cells = incidentCells(summary);
        expect(cell(cells, "contested")).toBe(false);
        expect(cell(cells, "denials")).toBe(0);
        expect(cell(cells, "statements")).toBe(1);
        expect(cell(cells, "retractions")).toBe(1);
      });
  });
});
