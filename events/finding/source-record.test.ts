import { describe, expect, it } from "vitest";
import { sourceKeysOf } from "../source-key.js";
import type { Summary } from "../summarize.js";
import { sourceRecord } from "./source-record.js";

/** A summary with only what a source record reads: its statements and figures. */
function summaryWith(parts: Record<string, unknown>): Summary {
  return {
    incidentId: "rec-1",
    title: "A strike",
    occurredOn: "2024-01-05",
    occurredAt: null,
    location: null,
    casualties: {},
    statements: { count: 0, latest: [] },
    denials: [],
    ...parts,
  } as unknown as Summary;
}

const SEALED_NAME = { $sealed: "c2VhbGVkLWNvbW1pdG1lbnQ" };
const statement = (eventId: string, attributedTo: Record<string, unknown>) => ({
  eventId,
  version: 2,
  recordedAt: "2024-01-06T00:00:00Z",
  attributedTo,
  quote: `Words of ${eventId}`,
  stance: "neutral",
  assessments: [],
});

describe("sourceRecord: the rows of a summary that name a source", () => {
  it("given a private person's statement, when asked by their pseudonym, then it is theirs, named by pseudonym only", () => {
    const summary = summaryWith({
      statements: {
        count: 2,
        latest: [
          statement("ev-private", { kind: "private", ref: "witness-7", name: SEALED_NAME }),
          statement("ev-other", { name: "Someone Else" }),
        ],
      },
      casualties: {
        killed: {
          bySource: [
            {
              eventId: "ev-figure",
              version: 3,
              attributedTo: { kind: "private", ref: "witness-7", name: SEALED_NAME },
              publisher: "Test Wire",
              figure: { value: 2, qualifier: "exact" },
            },
          ],
        },
      },
    });
    const record = sourceRecord(summary, new Set(sourceKeysOf("witness-7")));
    expect(record.statements.map((s) => s.eventId)).toEqual(["ev-private"]);
    expect(record.figures).toMatchObject([{ eventId: "ev-figure", speaker: "private source witness-7" }]);
    expect(JSON.stringify(record)).not.toContain(SEALED_NAME.$sealed);
  });

  it("given an official of the same name as a pseudonym, when asked by that name, then both are listed", () => {
    const summary = summaryWith({
      statements: {
        count: 2,
        latest: [
          statement("ev-private", { kind: "private", ref: "Wire C", name: SEALED_NAME }),
          statement("ev-named", { name: " Wire  C" }),
        ],
      },
    });
    const record = sourceRecord(summary, new Set(sourceKeysOf("Wire C")));
    expect(record.statements.map((s) => s.eventId)).toEqual(["ev-private", "ev-named"]);
  });

  it("given statements and denials a publisher published, when asked by its name, then they are its, with who said them", () => {
    const summary = summaryWith({
      statements: {
        count: 1,
        latest: [{ ...statement("ev-said", { name: "Mayor" }), publisher: "Test  Wire" }],
      },
      denials: [
        {
          eventId: "ev-denied",
          version: 3,
          recordedAt: "2024-01-06T00:00:00Z",
          attributedTo: { kind: "private", ref: "witness-7", name: SEALED_NAME },
          claim: "the depot was hit",
          publisher: "Test Wire",
          status: "unassessed",
          assessments: [],
          assessmentCount: 0,
        },
        {
          ...statement("ev-elsewhere", { name: "Mayor" }),
          claim: "x",
          publisher: "Other Wire",
          status: "unassessed",
        },
      ],
    });
    const record = sourceRecord(summary, new Set(sourceKeysOf("Test Wire")));
    expect(record.statements).toMatchObject([
      { eventId: "ev-said", speaker: "Mayor", publisher: "Test  Wire" },
    ]);
    expect(record.denials).toMatchObject([
      { eventId: "ev-denied", speaker: "private source witness-7", publisher: "Test Wire" },
    ]);
    expect(JSON.stringify(record)).not.toContain(SEALED_NAME.$sealed);
  });

  it("given a private person, when asked by another pseudonym, then nothing of theirs", () => {
    const summary = summaryWith({
      statements: {
        count: 1,
        latest: [statement("ev-private", { kind: "private", ref: "witness-7", name: SEALED_NAME })],
      },
    });
    expect(sourceRecord(summary, new Set(sourceKeysOf("witness-8"))).statements).toEqual([]);
  });
});

describe("sourceRecord: where the rows a summary leaves out are paged", () => {
  it("given a summary listing every row, then it points nowhere else", () => {
    const summary = summaryWith({ statements: { count: 1, latest: [statement("ev-1", { name: "A" })] } });
    expect(sourceRecord(summary, new Set(sourceKeysOf("A"))).more).toEqual([]);
  });

  it("given more statements, denials and a category's sources than it lists, then it names each list's sub-resource", () => {
    const summary = summaryWith({
      incidentId: "rec/odd id",
      statements: { count: 12, latest: [statement("ev-1", { name: "A" })] },
      denials: [],
      denialCount: 101,
      casualties: {
        peopleKilled: { bySource: [], sourceCount: 130 },
        injured: { bySource: [], sourceCount: 0 },
      },
    });
    expect(sourceRecord(summary, new Set(sourceKeysOf("A"))).more).toEqual([
      "/incidents/rec%2Fodd%20id/casualties/peopleKilled/sources",
      "/incidents/rec%2Fodd%20id/statements",
      "/incidents/rec%2Fodd%20id/denials",
    ]);
  });
});
