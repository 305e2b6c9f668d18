import { describe, expect, it } from "vitest";
import { importEventId } from "./event-ids.js";
import { ndjsonRow } from "./ndjson.js";

const stored = (over: Record<string, unknown>) => ({
  incidentId: "kyiv-strike-2024",
  eventId: "denial-1",
  version: 2,
  recordedAt: "2024-07-08T10:00:00.000Z",
  recordedBy: "someone",
  prevHash: "0".repeat(64),
  hash: "a".repeat(64),
  type: "DenialIssued",
  source: { publisher: "TASS" },
  attributedTo: { name: "Ministry of Defence" },
  data: { claim: "responsibility" },
  ...over,
});

describe("a line of an archive's events.ndjson", () => {
  it("given a stored event, then it is re-recorded under a new id, naming where it was first recorded", () => {
    const row = ndjsonRow(stored({}), 7, "export-1", "source.example/log");
    expect(row).toEqual({
      ok: true,
      incidentId: "kyiv-strike-2024",
      events: [
        {
          eventId: importEventId(["ndjson", "export-1", "denial-1"]),
          type: "DenialIssued",
          source: { publisher: "TASS" },
          attributedTo: { name: "Ministry of Defence" },
          data: { claim: "responsibility" },
          importedFrom: { origin: "source.example/log", index: 7, hash: "a".repeat(64) },
        },
      ],
    });
  });

  it("given an event holding sealed values, then each is named as one the export cannot give back", () => {
    const commitment = { $sealed: `sha-256:${"b".repeat(43)}` };
    const row = ndjsonRow(
      stored({
        type: "VictimsRecorded",
        attributedTo: { name: commitment, kind: "private", ref: "witness-A" },
        data: { victims: [{ name: commitment, sex: "female" }] },
      }),
      0,
      "export-1",
      "o",
    );
    expect(row.ok).toBe(false);
    expect(row.ok ? [] : row.errors.map((e) => e.path)).toEqual([
      "attributedTo.name",
      "data.victims[0].name",
    ]);
    expect(row.ok ? "" : row.errors[0]?.message).toMatch(/^is sealed: an export holds its commitment/);
  });
});
