import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { missedList, rowsTable } from "./lib/format.js";
import { Progress } from "./lib/progress.js";
import { gitCommit, machine, type Results, type Row, readResults, writeResults } from "./lib/results.js";
import { renote } from "./lib/row.js";
import { FULL, QUICK, type Suite } from "./lib/suite.js";
import { renderResults } from "./report.js";
import { lambdaBundle } from "./suites/bundle.js";
import { castore } from "./suites/castore.js";
import { httpAppend } from "./suites/http-append.js";
import { httpRead } from "./suites/http-read.js";
import { longIncident } from "./suites/long-incident.js";
import { projectionLag } from "./suites/projection-lag.js";
import { rebuild } from "./suites/rebuild.js";
import { userHeadline } from "./suites/user-headline.js";

const SUITES: Suite[] = [
  userHeadline,
  httpAppend,
  httpRead,
  projectionLag,
  rebuild,
  castore,
  lambdaBundle,
  longIncident,
];

// `npm run bench [-- --quick] [-- --out dir] [-- --only name] [-- --note text]`. A quick run
// writes to bench/results/quick/ (git-ignored) unless told otherwise, so it never replaces the
// committed full results. `-- --renote` measures nothing and only looks up the reasons of the
// missed goals again (after bench/explanations.ts changed), and renders latest.md anew.
// The SDK warns once per process that it will need Node 22 from 2027; the machines run 20 by design.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    out: { type: "string" },
    only: { type: "string" },
    renote: { type: "boolean", default: false },
    // What the figures should be read with, e.g. that the machine was busy: kept in the results.
    note: { type: "string" },
  },
});
const quick = values.quick === true;
const sizes = quick ? QUICK : FULL;
const suites = values.only
  ? SUITES.filter((s) => s.name.toLowerCase().includes(String(values.only).toLowerCase()))
  : SUITES;
const outDir = resolve(values.out ?? (quick ? "bench/results/quick" : "bench/results"));

if (values.renote) {
  const stored = readResults(outDir);
  if (!stored) throw new Error(`no results in ${outDir} to renote`);
  const renoted: Results = {
    ...stored,
    ...(values.note ? { note: values.note } : {}),
    rows: stored.rows.map(renote),
  };
  writeResults(outDir, renoted, renderResults(renoted));
  process.stdout.write(`${missedList(renoted.rows)}\n`);
  process.exit(0);
}

const started = performance.now();
// Taken before any measurement: the code measured is the code loaded now.
const host = machine();
const commit = gitCommit();
const progress = new Progress(suites.reduce((n, s) => n + s.steps(sizes), 0));
const rows: Row[] = [];
for (const suite of suites) rows.push(...(await suite.run({ sizes, quick, progress })));
progress.finish();

const previous = readResults(outDir);
const results: Results = {
  benchmark: "incident-ledger",
  quick,
  date: new Date().toISOString(),
  commit,
  machine: host,
  durationSeconds: Math.round((performance.now() - started) / 1000),
  ...(values.note ? { note: values.note } : {}),
  rows,
  ...(previous?.soak ? { soak: previous.soak } : {}),
};
writeResults(outDir, results, renderResults(results));
process.stdout.write(
  `\n${rowsTable(rows)}\n\nMissed goals:\n${missedList(rows)}\n\nwritten to ${outDir}/latest.{json,md}\n`,
);
// Sockets of the SDK's keep-alive agents may linger; the results are written.
process.exit(0);
