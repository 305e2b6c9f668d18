import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../../../../events/stored-event.js";
import { victimEntries } from "./victims-linked.js";

const event = (eventId: string, version: number, type: string, data: Record<string, unknown>) =>
  ({ eventId, version, type, incidentId: "i", source: { publisher: "AP" }, data }) as unknown as StoredEvent;

describe("the entries a victims link offers", () => {
  it("given a retracted list of victims, then its entries are not offered; the others are, by public fields", () => {
    const events = [
      event("retraction-1", 4, "ReportRetracted", { targetEventId: "victims-two" }),
      event("victims-two", 3, "VictimsRecorded", {
        victims: [{ name: { $sealed: "x" }, status: "civilian" }],
      }),
      event("victims-one", 2, "VictimsRecorded", {
        victims: [
          { name: { $sealed: "y" }, sex: "female" },
          { name: { $sealed: "z" }, status: "civilian" },
        ],
      }),
    ];
    expect(victimEntries({ incidentId: "i", events }).map((e) => e.value)).toEqual([
      "victims-one#0",
      "victims-one#1",
    ]);
    // A retraction older than the events the form reads is in the summary's list.
    const later = events.slice(1);
    const summary = { retractedEventIds: ["victims-one"] } as never;
    expect(victimEntries({ incidentId: "i", events: later, summary }).map((e) => e.value)).toEqual([
      "victims-two#0",
    ]);
  });
});
