import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type StoredEvent, verifyChain } from "../../events/stored-event.js";
import { type Summary, summarize } from "../../events/summarize.js";
import { fold } from "../../events/summary.js";
import { SCHEMA_VERSIONS, schemaVersionOf, upcast } from "../../events/upcast.js";

/**
 * Every shape of stored event this archive has written: the version-1 events (no
 * `schemaVersion`; the sample's incidents and one of every figure form, assessment and
 * retraction) and the current ones. Stored events never change, so these must keep folding to
 * the same summaries: `summaries.json` is frozen (checked by hand when written), never
 * regenerated to make a change pass.
 */
const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/stored-shapes/${name}`, import.meta.url));
const corpus: StoredEvent[] = readFileSync(fixture("events.ndjson"), "utf8")
  .split("\n")
  .filter((l) => l !== "")
  .map((l) => JSON.parse(l));
const golden: Record<string, Summary> = JSON.parse(readFileSync(fixture("summaries.json"), "utf8"));
const incidents = [...new Set(corpus.map((e) => e.incidentId))];
const eventsOf = (id: string) => corpus.filter((e) => e.incidentId === id);

describe("the stored-shape corpus", () => {
  it("given the corpus, then it holds version-1 events of every original type and current events of every type", () => {
    const v1 = new Set(
      corpus.filter((e) => schemaVersionOf(e) === 1 && e.schemaVersion === undefined).map((e) => e.type),
    );
    expect([...v1].sort()).toEqual(
      [
        "CasualtiesReported",
        "ClaimAssessed",
        "DenialIssued",
        "IncidentOpened",
        "ReportRetracted",
        "StatementMade",
      ].sort(),
    );
    const current = corpus.filter((e) => e.schemaVersion !== undefined);
    expect(new Set(current.map((e) => e.type))).toEqual(
      new Set([
        "IncidentOpened",
        "CasualtiesReported",
        "IncidentRevised",
        "IncidentGraded",
        "AttributionAssessed",
        "IncidentsLinked",
      ]),
    );
    for (const e of current) expect(e.schemaVersion).toBe(SCHEMA_VERSIONS[e.type]);
  });

  it.each(incidents)("given the stored events of %s, then their chain checks out as stored", (id) => {
    expect(verifyChain(eventsOf(id)).ok).toBe(true);
  });

  it.each(incidents)(
    "given the stored events of %s, when folded today, then the summary is the frozen one",
    (id) => {
      expect(summarize(fold(id, eventsOf(id)))).toEqual(golden[id]);
    },
  );

  it("given a version-1 opening with only the envelope's time, when upcast, then the time is in its data and the stored event is untouched", () => {
    const opening = eventsOf("mariupol-theatre-2022-03-16")[0] as StoredEvent;
    const before = structuredClone(opening);
    expect(upcast(opening).data.occurredAt).toBe("2022-03-16T10:00:00+02:00");
    expect(opening).toEqual(before);
    expect(opening.data.occurredAt).toBeUndefined();
  });

  it("given an event already in the current shape, then upcasting returns it as it is", () => {
    const current = corpus.find((e) => e.schemaVersion === SCHEMA_VERSIONS.IncidentOpened) as StoredEvent;
    expect(upcast(current)).toBe(current);
  });
});
