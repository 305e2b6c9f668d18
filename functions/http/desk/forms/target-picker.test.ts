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
});
