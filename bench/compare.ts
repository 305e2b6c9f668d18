import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Results, Row } from "./lib/results.js";

/**
 * Two runs side by side: `npm run compare -w incident-ledger-bench -- <before.json> <after.json>`
 * prints, for every row the two share (by id), each run's ratio against its own baseline and how
 * far the second moved from the first. Ratios, not absolute figures: each run measured its
 * baseline beside it, so two runs on a machine at different loads still compare.
 * `--only <text>` keeps the rows whose id or title contains it.
 */
const { positionals, values } = parseArgs({ allowPositionals: true, options: { only: { type: "string" } } });
const [beforePath, afterPath] = positionals;
if (!beforePath || !afterPath) throw new Error("usage: compare <before latest.json> <after latest.json>");
const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Results;
const before = read(beforePath);
const after = read(afterPath);
const byId = new Map(before.rows.map((r) => [r.id, r]));
const wanted = (r: Row) => !values.only || r.id.includes(values.only) || r.title.includes(values.only);
const shown = after.rows.filter((r) => byId.has(r.id) && wanted(r));

const fmt = (n: number) => (Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));
// For a time a lower ratio is better; for a rate (unit ending "/s") a higher one.
const better = (row: Row, change: number) => (row.unit.endsWith("/s") ? change > 0 : change < 0);
const lines = [
  `before: ${before.commit.sha.slice(0, 7)} ${before.date} (load ${before.machine.loadAverageAtStart})`,
  `after:  ${after.commit.sha.slice(0, 7)} ${after.date} (load ${after.machine.loadAverageAtStart})`,
  "",
  "| row | before | after | change |",
  "| --- | ---: | ---: | ---: |",
];
for (const row of shown) {
  const old = byId.get(row.id) as Row;
  const change = (row.ratio - old.ratio) / old.ratio;
  const mark = Math.abs(change) <= 0.1 ? "" : better(row, change) ? " (better)" : " (worse)";
  lines.push(
    `| ${row.title} | ${fmt(old.ratio)}× | ${fmt(row.ratio)}× | ${(change * 100).toFixed(0)} %${mark} |`,
  );
}
lines.push("", `${shown.length} rows in both; ${after.rows.length - shown.length} only in the second run.`);
process.stdout.write(`${lines.join("\n")}\n`);
