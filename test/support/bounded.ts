import { expect } from "vitest";
import {
  BAND_STEPS_KEPT,
  CHART_MARKS_KEPT,
  type IncidentState,
  REPORTS_KEPT,
  STATEMENTS_KEPT,
} from "../../events/summary.js";

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
}
