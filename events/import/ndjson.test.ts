import { describe, expect, it } from "vitest";
import { hashEvent } from "../stored-event.js";
import { importEventId } from "./event-ids.js";
import { type ExportChains, ndjsonRow } from "./ndjson.js";

/** A stored event as an export holds it: its hash over the rest. */
const stored = (over: Record<string, unknown>): Record<string, unknown> & { hash: string } => {
  const event = {
    incidentId: "kyiv-strike-2024",
    eventId: "denial-1",
    version: 2,
    recordedAt: "2024-07-08T10:00:00.000Z",
    recordedBy: "someone",
    prevHash: "0".repeat(64),
    type: "DenialIssued",
    source: { publisher: "TASS" },
    attributedTo: { name: "Ministry of Defence" },
    data: { claim: "responsibility" },
    ...over,
  };
  return { ...event, hash: hashEvent(event as never) };
};

describe("a line of an archive's events.ndjson", () => {
  it("given a stored event, then it is re-recorded under a new id, naming where it was first recorded", () => {
    const line = stored({});
    const row = ndjsonRow(line, 7, "export-1", "source.example/log");
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
          importedFrom: { origin: "source.example/log", index: 7, hash: line.hash },
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

  it("given a line changed after its archive wrote it, then it fails naming its hash; the lines after it go on", () => {
    const chains: ExportChains = new Map();
    const first = stored({ version: 1, eventId: "figure-1", data: { claim: "one" } });
    const changed = {
      ...stored({ version: 2, prevHash: first.hash, eventId: "figure-2" }),
      data: { claim: "other" },
    };
    const third = stored({ version: 3, prevHash: changed.hash, eventId: "figure-3" });
    expect(ndjsonRow(first, 0, "e", "o", chains).ok).toBe(true);
    const refused = ndjsonRow(changed, 1, "e", "o", chains);
    expect(refused.ok ? [] : refused.errors.map((e) => e.path)).toEqual(["hash"]);
    expect(refused.ok ? "" : refused.errors[0]?.message).toMatch(/^does not recompute from the event/);
    expect(ndjsonRow(third, 2, "e", "o", chains).ok).toBe(true);
  });

  it("given an incident's event left out of the export, then the next one fails naming its prevHash", () => {
    const chains: ExportChains = new Map();
    const first = stored({ version: 1, eventId: "figure-1" });
    const second = stored({ version: 2, prevHash: first.hash, eventId: "figure-2" });
    const third = stored({ version: 3, prevHash: second.hash, eventId: "figure-3" });
    expect(ndjsonRow(first, 0, "e", "o", chains).ok).toBe(true);
    const refused = ndjsonRow(third, 2, "e", "o", chains);
    expect(refused.ok ? [] : refused.errors.map((e) => e.path)).toEqual(["prevHash"]);
    // Another incident's chain is its own.
    expect(ndjsonRow(stored({ incidentId: "kharkiv-2024", version: 5 }), 3, "e", "o", chains).ok).toBe(true);
  });
});
