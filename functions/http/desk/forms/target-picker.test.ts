import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../../../events/stored-event.js";
import { targetLabel } from "./target-picker.js";

const event = (type: string, data: Record<string, unknown>, attributedTo?: { name: string }) =>
  ({
    incidentId: "picker",
    eventId: `${type}-1`,
    version: 4,
    type,
    source: { publisher: "Test Daily" },
    ...(attributedTo ? { attributedTo } : {}),
    data,
  }) as unknown as StoredEvent;

const text = async (e: StoredEvent) => String(await targetLabel(e)).replace(/<\/?bdi>/g, "");

describe("a target's label", () => {
  it("given a report with words, then who, a colon and the words, and where it was published", async () => {
    expect(await text(event("StatementMade", { quote: "We will rebuild." }, { name: "Mayor" }))).toBe(
      "v4 · Statement made · Mayor: “We will rebuild.” (Test Daily)",
    );
  });

  it("given victims, then how many; given nothing to show, then no colon before the publisher", async () => {
    const victims = event(
      "VictimsRecorded",
      { victims: [{ sex: "male" }, { sex: "female" }] },
      { name: "Hospital" },
    );
    expect(await text(victims)).toBe("v4 · Victims recorded · Hospital: 2 person(s) (Test Daily)");
    expect(await text(event("IncidentGraded", { grade: "confirmed" }, { name: "Editors" }))).toBe(
      "v4 · Incident graded · Editors (Test Daily)",
    );
  });

  it("given no speaker, then the archive for its own judgements, and for a report only its publisher", async () => {
    expect(await text(event("IncidentGraded", { grade: "confirmed" }))).toBe(
      "v4 · Incident graded · the archive (Test Daily)",
    );
    expect(await text(event("EvidenceCaptured", { title: "Photo of the platform" }))).toBe(
      "v4 · Evidence captured: Photo of the platform (Test Daily)",
    );
  });
});

describe("the retraction form's targets", () => {
  it("offers the reports a retraction may name, never one already retracted or the archive's own judgements", async () => {
    const { reportRetractedForm } = await import("./report-retracted.js");
    const { targetsOf } = await import("./target-picker.js");
    const at = (type: string, eventId: string, data: Record<string, unknown> = {}) =>
      ({ ...event(type, data), eventId }) as StoredEvent;
    const events = [
      at("ReportRetracted", "retraction-1", { targetEventId: "figure-1" }),
      at("RedactionApplied", "redaction-1", { targetEventId: "victims-1" }),
      at("IncidentRevised", "revised-1"),
      at("IncidentGraded", "graded-1"),
      at("VictimsRecorded", "victims-1"),
      at("StatementMade", "statement-1"),
      at("CasualtiesReported", "figure-1"),
      at("IncidentOpened", "opened-1"),
    ];
    const context = { incidentId: "picker", events };
    const html = String(
      await reportRetractedForm.Fields({ form: { values: new Map(), errors: new Map() }, context } as never),
    );
    const offered = [...html.matchAll(/name="data\.targetEventId" id="[^"]+" value="([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(offered).toEqual(["victims-1", "statement-1"]);
    expect(targetsOf(context).map((e) => e.eventId)).toContain("redaction-1");
  });
});
