import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { missedList, rowsTable } from "./lib/format.js";
import { fromRoot } from "./lib/paths.js";
import { Progress } from "./lib/progress.js";
import { writeReadmeBlock } from "./lib/readme.js";
import { gitCommit, machine, type Results, type Row, readResults, writeResults } from "./lib/results.js";
import { FULL, QUICK, type Suite } from "./lib/suite.js";
import { renderResults, renderRun } from "./report.js";
import { lambdaBundle } from "./suites/bundle.js";
import { castore } from "./suites/castore.js";
import { httpAppend } from "./suites/http-append.js";
import { httpRead } from "./suites/http-read.js";
import { longIncident } from "./suites/long-incident.js";
import { rebuild } from "./suites/rebuild.js";
import { userHeadline } from "./suites/user-headline.js";

const SUITES: Suite[] = [userHeadline, rebuild, httpAppend, httpRead, castore, longIncident, lambdaBundle];

// `npm run bench [-- --quick] [-- --out dir] [-- --only name] [-- --note text]`. Results go to
// bench/results/ (git-ignored: a build artefact); a full run of every suite into that default
// directory also rewrites the tables in bench/README.md. A quick run writes to
// bench/results/quick/ and never touches the README.
// The SDK warns once per process that it will need Node 22 from 2027; the machines run 20 by design.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    out: { type: "string" },
    only: { type: "string" },
    // What the figures should be read with, e.g. that the machine was busy: kept in the results.
    note: { type: "string" },
  },
});
const quick = values.quick === true;
const sizes = quick ? QUICK : FULL;
const suites = values.only
  ? SUITES.filter((s) => s.name.toLowerCase().includes(String(values.only).toLowerCase()))
  : SUITES;
const outDir = resolve(values.out ?? fromRoot(quick ? "bench/results/quick" : "bench/results"));

const started = performance.now();
// Taken before any measurement: the code measured is the code loaded now.
const host = machine();
const commit = gitCommit(fromRoot());
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
const complete = !quick && values.only === undefined && values.out === undefined;
if (complete) writeReadmeBlock("bench", renderRun(results));
process.stdout.write(
  `\n${rowsTable(rows)}\n\nMissed goals:\n${missedList(rows)}\n\nwritten to ${outDir}/latest.{json,md}${complete ? " and bench/README.md" : ""}\n`,
);
// Sockets of the SDK's keep-alive agents may linger; the results are written.
process.exit(0);
