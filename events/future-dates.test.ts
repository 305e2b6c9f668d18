import { describe, expect, it } from "vitest";
import { futureDates } from "./future-dates.js";
import type { Envelope } from "./schemas.js";

const RECORDED = "2026-12-07T21:00:00.000Z";
const MESSAGE = "must not be after the day it is recorded (2026-12-07): a report tells what has happened";
const event = (fields: Record<string, unknown>, data: Record<string, unknown> = {}) =>
  ({ type: "IncidentOpened", source: { publisher: "AP" }, ...fields, data }) as unknown as Envelope;

describe("dates after the moment a report is recorded", () => {
  it("given dates up to a day ahead (zones east, clocks a little fast), refuses none", () => {
    expect(
      futureDates(
        event(
          { occurredAt: "2026-12-08T20:59:00Z", source: { publisher: "AP", publishedAt: "2026-12-08" } },
          { occurredOn: "2026-12-07", occurredUntil: "2026-12-08" },
        ),
        RECORDED,
      ),
    ).toEqual([]);
  });

  it("given a year typed wrong in any date of what happened, refuses each, naming its path", () => {
    const typo = event(
      { occurredAt: "2062-04-08T09:00:00Z", source: { publisher: "AP", publishedAt: "2062-04-08" } },
      {
        occurredOn: "2062-04-08",
        occurredUntil: "2026-12-10",
        victims: [{ diedOn: "2022-04-08" }, { diedOn: "2062-04-08" }],
      },
    );
    expect(futureDates(typo, RECORDED).map((e) => e.path)).toEqual([
      "occurredAt",
      "source.publishedAt",
      "data.occurredOn",
      "data.occurredUntil",
      "data.victims[1].diedOn",
    ]);
    expect(futureDates(typo, RECORDED)[0]?.message).toBe(MESSAGE);
  });

  it("given a capture's own time ahead, refuses nothing: a tool's clock never keeps evidence out", () => {
    const capture = {
      type: "EvidenceCaptured",
      source: { publisher: "AP" },
      data: {
        capturedAt: "2062-01-01T00:00:00Z",
        archives: [{ service: "x", url: "https://x", capturedAt: "2062-01-01T00:00:00Z" }],
      },
    } as unknown as Envelope;
    expect(futureDates(capture, RECORDED)).toEqual([]);
  });

  it("given a batch's prefix, names the path within it", () => {
    expect(futureDates(event({}, { occurredOn: "2030-01-01" }), RECORDED, "events[2].")).toEqual([
      { path: "events[2].data.occurredOn", message: MESSAGE },
    ]);
  });
});
