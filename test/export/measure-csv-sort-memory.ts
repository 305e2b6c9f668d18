import { type IncidentVersion, lastVersionsById } from "../../functions/export/last-versions.js";

/**
 * `node --expose-gc --import tsx test/export/measure-csv-sort-memory.ts [incidents…]`
 * (default 20000 100000 400000 1000000): the live heap incidents.csv needs to put incidents in
 * id order with their last versions, as the number of incidents grows — the one-map way the
 * export used to take (one entry per incident, then a sorted array of ids) against
 * `lastVersionsById` (runs of 50,000 spilled to disk and merged). Leaves are generated as they
 * are read (two versions of each incident, interleaved), so the input itself holds nothing;
 * the heap is sampled right after a collection, every 5,000 leaves in and ids out.
 */
if (!global.gc) throw new Error("run with node --expose-gc");
const gc = global.gc;
const sizes = process.argv.slice(2).map(Number);
const counts = sizes.length > 0 ? sizes : [20_000, 100_000, 400_000, 1_000_000];

function* leaves(incidents: number): Generator<IncidentVersion> {
  for (let version = 1; version <= 2; version++)
    for (let i = 0; i < incidents; i++)
      // A scattered order of ids, as real traffic interleaves incidents.
      yield { incidentId: `incident-${((i * 7919) % incidents).toString(36).padStart(6, "0")}`, version };
}

const heapNow = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
const liveMB = (base: number) => {
  gc();
  return (process.memoryUsage().heapUsed - base) / 2 ** 20;
};

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

async function oneMap(incidents: number) {
  const base = heapNow();
  const started = performance.now();
  const last = new Map<string, number>();
  let peak = 0;
  let n = 0;
  for await (const leaf of asAsync(leaves(incidents))) {
    if (leaf.version > (last.get(leaf.incidentId) ?? 0)) last.set(leaf.incidentId, leaf.version);
    if (++n % 5000 === 0) peak = Math.max(peak, liveMB(base));
  }
  const ids = [...last.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  peak = Math.max(peak, liveMB(base));
  let out = 0;
  for (const id of ids) out += last.get(id) === 2 ? 1 : 0;
  return { seconds: (performance.now() - started) / 1000, peakLiveHeapMB: peak, rows: out };
}

async function spilled(incidents: number) {
  const base = heapNow();
  const started = performance.now();
  let peak = 0;
  let n = 0;
  const counted = async function* () {
    for await (const leaf of asAsync(leaves(incidents))) {
      if (++n % 5000 === 0) peak = Math.max(peak, liveMB(base));
      yield leaf;
    }
  };
  let out = 0;
  for await (const entry of lastVersionsById(counted())) {
    out += entry.version === 2 ? 1 : 0;
    if (out % 5000 === 0) peak = Math.max(peak, liveMB(base));
  }
  return { seconds: (performance.now() - started) / 1000, peakLiveHeapMB: peak, rows: out };
}

const round = (x: number) => Math.round(x * 10) / 10;
const rows = [];
for (const incidents of counts) {
  const a = await oneMap(incidents);
  const b = await spilled(incidents);
  if (a.rows !== incidents || b.rows !== incidents) throw new Error("a sort lost rows");
  rows.push({
    incidents,
    oneMap: { peakLiveHeapMB: round(a.peakLiveHeapMB), seconds: round(a.seconds) },
    spilledRuns: { peakLiveHeapMB: round(b.peakLiveHeapMB), seconds: round(b.seconds) },
  });
}
process.stdout.write(`${JSON.stringify({ node: process.version, rows }, null, 2)}\n`);
