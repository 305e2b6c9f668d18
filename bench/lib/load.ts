import { type LatencySummary, summarize } from "./stats.js";

export interface LoadOptions {
  /** How many operations in all. */
  total: number;
  /** How many run at once (each worker waits for its answer before the next). */
  concurrency: number;
  /** The i-th operation; throwing fails the run (a benchmark of errors measures nothing). */
  op: (i: number) => Promise<unknown>;
}

/** Runs `total` operations with `concurrency` workers pulling from one counter; times each. */
export async function runLoad({ total, concurrency, op }: LoadOptions): Promise<LatencySummary> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const started = performance.now();
      await op(i);
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return summarize(latencies, performance.now() - started);
}

/** Runs the same operation set against each side in turn, round after round (ABAB…), so drift hits both. */
export async function alternate<K extends string>(
  rounds: number,
  sides: Record<K, (round: number) => Promise<LatencySummary>>,
): Promise<Record<K, LatencySummary[]>> {
  const keys = Object.keys(sides) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, [] as LatencySummary[]])) as Record<K, LatencySummary[]>;
  for (let round = 0; round < rounds; round++) {
    // Swap the order every round: whoever runs second does not always inherit the first's garbage.
    const order = round % 2 === 0 ? keys : [...keys].reverse();
    for (const key of order) out[key].push(await sides[key](round));
  }
  return out;
}
