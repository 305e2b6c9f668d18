/** Small statistics over latency samples (milliseconds). */

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface LatencySummary {
  p50: number;
  p99: number;
  /** Operations per second over the whole run. */
  throughput: number;
  count: number;
}

export function summarize(latencies: readonly number[], elapsedMs: number): LatencySummary {
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    throughput: (latencies.length / elapsedMs) * 1000,
    count: latencies.length,
  };
}

/** The median of each field over several rounds: one slow round on a shared machine does not decide. */
export function medianOf(rounds: readonly LatencySummary[]): LatencySummary {
  return {
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    throughput: median(rounds.map((r) => r.throughput)),
    count: rounds.reduce((n, r) => n + r.count, 0),
  };
}
