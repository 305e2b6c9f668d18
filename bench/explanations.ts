/**
 * Why a goal is missed, found by profiling (see docs/bench-section.md). Matched on row id
 * prefixes; the first match wins. A missed row without a match says "not yet explained".
 */
const REASONS: [prefix: string, reason: string][] = [];

export function explain(id: string): string | undefined {
  return REASONS.find(([prefix]) => id.startsWith(prefix))?.[1];
}
