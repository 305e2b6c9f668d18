import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { summarize } from "../../events/summarize.js";
import { fold, LATEST_STATEMENTS, REPORTS_KEPT, STATEMENTS_KEPT } from "../../events/summary.js";
import { AP, INCIDENT, sealAll } from "../../events/test-kit.js";
import { expectBounded } from "../support/bounded.js";
import { contractView, oracleSummary } from "../support/contract-oracle.js";
import { CONTESTED, longHistory } from "../support/long-history.js";

/** What the contract says the summary of these events is, against what the bounded fold gives. */
const agree = (summary: unknown, events: readonly StoredEvent[]) =>
  expect(contractView(summary as Record<string, unknown>)).toEqual(
    oracleSummary(events[0]?.incidentId ?? INCIDENT, events),
  );

describe("the bounded fold", () => {
  it("gives the summary the contract defines, at every length of long histories", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 30, max: 500 }), (seed, length) => {
        const events = longHistory(`long-${seed % 1000}`, length, seed);
        const state = fold(events[0]?.incidentId as string, events);
        expectBounded(state);
        agree(summarize(state), events);
        // And halfway, folded on from a state with only the history it may read back.
        const half = Math.floor(length / 2);
        const first = fold(state.incidentId, events.slice(0, half));
        expect(fold(state.incidentId, events.slice(half), first, events.slice(0, half))).toEqual(state);
      }),
      { numRuns: 40 },
    );
  });

  it("gives the summary the contract defines for contested histories whose lists spill into pieces", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.integer({ min: 1_200, max: 2_500 }),
        (seed, length) => {
          const events = longHistory(`contested-${seed % 1000}`, length, seed, CONTESTED);
          const state = fold(events[0]?.incidentId as string, events);
          expect(state.spilled?.pieces.denials).toBeGreaterThan(0);
          expectBounded(state);
          agree(summarize(state), events);
          const half = Math.floor(length / 2);
          const first = fold(state.incidentId, events.slice(0, half));
          expect(fold(state.incidentId, events.slice(half), first, events.slice(0, half))).toEqual(state);
        },
      ),
      { numRuns: 6 },
    );
  });

  it("reads back a source's earlier report when every kept one is retracted", () => {
    const reports = Array.from({ length: REPORTS_KEPT + 3 }, (_, i) => ({
      eventId: `report-${i}`,
      type: "CasualtiesReported",
      source: AP,
      attributedTo: { name: i === 0 ? "Deep Source" : "Deep Source" },
      data: { figures: { killed: { value: 10 + i, qualifier: "exact" } } },
    }));
    const noise = Array.from({ length: 40 }, (_, i) => ({
      eventId: `noise-${i}`,
      type: "StatementMade",
      source: AP,
      attributedTo: { name: "Someone Else" },
      data: { quote: `noise ${i}`, stance: "neutral" },
    }));
    const retractions = reports.slice(1).map((r, i) => ({
      eventId: `retract-${i}`,
      type: "ReportRetracted",
      source: AP,
      attributedTo: { name: "Deep Source" },
      data: { targetEventId: r.eventId, reason: "wrong" },
    }));
    const opened = {
      eventId: "deep-opened",
      type: "IncidentOpened",
      source: AP,
      data: { title: "t", kind: "shelling", location: { name: "x", country: "UA" } },
    };
    // biome-ignore lint/suspicious/noExplicitAny: envelopes built loosely for the scenario.
    const events = sealAll([opened, ...reports, ...noise, ...retractions] as any);
    const s = summarize(fold(INCIDENT, events));
    expect(s.casualties.killed?.low).toBe(10);
    expect(s.casualties.killed?.latest?.eventId).toBe("report-0");
    agree(s, events);
  });

  it("reads back older statements, with their assessments, when the kept ones are retracted", () => {
    const statements = Array.from({ length: STATEMENTS_KEPT + LATEST_STATEMENTS }, (_, i) => ({
      eventId: `statement-${i}`,
      type: "StatementMade",
      source: AP,
      attributedTo: { name: `Speaker ${i}` },
      data: { quote: `quote ${i}`, stance: "condemns" },
    }));
    const assessed = {
      eventId: "assess-old",
      type: "ClaimAssessed",
      source: AP,
      attributedTo: { name: "Fact checker" },
      data: { targetEventId: "statement-3", verdict: "disputed" },
    };
    const retractions = statements.slice(-STATEMENTS_KEPT + 1).map((s, i) => ({
      eventId: `retract-st-${i}`,
      type: "ReportRetracted",
      source: AP,
      attributedTo: { name: "Desk" },
      data: { targetEventId: s.eventId, reason: "misquoted" },
    }));
    const opened = {
      eventId: "st-opened",
      type: "IncidentOpened",
      source: AP,
      data: { title: "t", kind: "shelling", location: { name: "x", country: "UA" } },
    };
    // biome-ignore lint/suspicious/noExplicitAny: envelopes built loosely for the scenario.
    const events = sealAll([opened, ...statements, assessed, ...retractions] as any);
    const s = summarize(fold(INCIDENT, events));
    expect(s.statements.count).toBe(LATEST_STATEMENTS + 1);
    expect(s.statements.latest.find((x) => x.eventId === "statement-3")?.assessments).toHaveLength(1);
    agree(s, events);
  });
});
