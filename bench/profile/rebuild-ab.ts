import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createTables } from "../../functions/store/create-tables.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { startDynalite } from "../lib/dynamo.js";
import { makeHistory, storeHistory } from "../lib/history.js";
import { median } from "../lib/stats.js";
import { rawQueryAll, rebuildAll } from "../suites/rebuild.js";

/**
 * This tree's rebuild against another checkout's (a baseline commit, its own node_modules/.cache),
 * in one process, over the same dynalite and stored events, alternating with the raw paginated
 * Query, so all three meet the same load:
 *   tsx bench/profile/rebuild-ab.ts <other checkout> [incidents] [eventsPerIncident] [rounds]
 * Prints each one's median wall time and rate as a share of the raw Query's (the bench row),
 * then CPU times (Linux, /proc, 10 ms ticks), which follow the machine's load much less than
 * wall times: this thread's (the scan, dynalite, whatever else stays here), the busiest other
 * thread started meanwhile (the fold thread; sampled every 20 ms, its last few ms missed), and
 * the whole process's (every thread: GC helpers too). On two cores a rebuild takes at least
 * the larger of this thread's and the fold thread's time, and at least half the process's.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const other = process.argv[2];
if (!other) throw new Error("usage: rebuild-ab.ts <other checkout> [incidents] [events each] [rounds]");
const incidents = Number(process.argv[3] ?? 300);
const per = Number(process.argv[4] ?? 100);
const rounds = Number(process.argv[5] ?? 5);
const theirs = (await import(pathToFileURL(resolve(other, "bench/suites/rebuild.ts")).href)) as {
  rebuildAll: typeof rebuildAll;
};
const dynamo = await startDynalite();
const db = dynamo.client();
const tables: TableNames = { events: "ab-events", claims: "ab-claims", views: "ab-views" };
await createTables(db, tables);
const history = makeHistory(incidents, incidents * per, "ab");
const stored = await storeHistory(db, tables.events, history);
const ids = [...history.keys()];
const runs: [string, (round: number) => Promise<unknown>][] = [
  ["raw paginated Query (baseline)", () => rawQueryAll(db, tables.events, ids, stored)],
  [`rebuild of ${other}`, (round) => theirs.rebuildAll(db, tables, ids, round)],
  ["rebuild of this tree", (round) => rebuildAll(db, tables, ids, round + rounds)],
];

/** A thread's user + system CPU time in ms (/proc/…/stat fields 14 and 15, in 10 ms ticks). */
function threadCpu(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
function threadCpus(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      out.set(tid, threadCpu(readFileSync(`/proc/self/task/${tid}/stat`, "utf8")));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

const wall = runs.map(() => [] as number[]);
const mainCpu = runs.map(() => [] as number[]);
const otherCpu = runs.map(() => [] as number[]);
const processCpu = runs.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  for (const [i, [, run]] of runs.entries()) {
    const before = threadCpus();
    const seen = new Map<string, number>();
    const sample = setInterval(() => {
      for (const [tid, ms] of threadCpus()) if (!before.has(tid)) seen.set(tid, ms);
    }, 20);
    const main = threadCpu(readFileSync("/proc/thread-self/stat", "utf8"));
    const used = process.cpuUsage();
    const started = performance.now();
    await run(round);
    wall[i]?.push(performance.now() - started);
    clearInterval(sample);
    const { user, system } = process.cpuUsage(used);
    processCpu[i]?.push((user + system) / 1000);
    mainCpu[i]?.push(threadCpu(readFileSync("/proc/thread-self/stat", "utf8")) - main);
    otherCpu[i]?.push(Math.max(0, ...seen.values()));
  }
}
const base = median(wall[0] ?? []);
const ms = (values: number[] | undefined) =>
  median(values ?? [])
    .toFixed(0)
    .padStart(6);
process.stdout.write(
  `${incidents} incidents × ${per} events, ${rounds} rounds (medians; rate ÷ the raw Query's; CPU ms: this thread / new thread / process):\n`,
);
for (const [i, [label]] of runs.entries()) {
  const time = median(wall[i] ?? []);
  process.stdout.write(
    `${time.toFixed(0).padStart(7)} ms  ${(base / time).toFixed(2)}×  CPU ${ms(mainCpu[i])} / ${ms(otherCpu[i])} / ${ms(processCpu[i])}  ${label}\n`,
  );
}
db.destroy();
await dynamo.close();
