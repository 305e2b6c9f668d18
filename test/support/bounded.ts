import { expect } from "vitest";
import { PIECE_CHARS } from "../../events/spill.js";
import {
  BAND_STEPS_KEPT,
  CHART_MARKS_KEPT,
  type IncidentState,
  REPORTS_KEPT,
  STATEMENTS_KEPT,
} from "../../events/summary.js";

/** The largest row a spilled list holds: a denial with a 2,000-character claim and counter-claim and a clipped quote. */
const LARGEST_ROW = 6_000;

/** Asserts that a fold state holds no more than its bounds, whatever the incident's length. */
export function expectBounded(state: IncidentState): void {
  for (const entry of Object.values(state.casualties))
    for (const kept of Object.values(entry.sources)) {
      expect(kept.recent.length).toBeLessThanOrEqual(REPORTS_KEPT);
      expect(kept.marks.length).toBeLessThanOrEqual(CHART_MARKS_KEPT);
    }
  for (const entry of Object.values(state.casualties))
    expect(entry.band.length).toBeLessThanOrEqual(BAND_STEPS_KEPT);
  expect(state.statements.recent.length).toBeLessThanOrEqual(STATEMENTS_KEPT);
  // The lists the summary shows in full keep only an inline tail; the rest is in sealed pieces.
  for (const tail of [state.denials, state.denialAssessments, state.retractedEventIds])
    expect(JSON.stringify(tail).length).toBeLessThanOrEqual(2 * PIECE_CHARS);
  for (const piece of state.unsaved ?? [])
    expect(JSON.stringify(piece.rows).length).toBeLessThanOrEqual(PIECE_CHARS + LARGEST_ROW);
}
