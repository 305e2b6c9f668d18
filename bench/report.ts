import { missedList, rowsTable } from "./lib/format.js";
import type { Results } from "./lib/results.js";
import { renderSoak, type SoakResults } from "./soak/report.js";

/** The run's tables: what bench/README.md shows between its markers, and latest.md's body. */
export function renderRun(results: Results): string {
  const m = results.machine;
  return [
    `${results.quick ? "Quick run (small sizes: a smoke test, not figures to quote)" : "Full run"} of \`npm run bench\` on ${results.date.slice(0, 10)}, commit \`${results.commit.sha.slice(0, 12)}\`${results.commit.dirty ? " (with uncommitted changes in events/ or functions/)" : ""}, ${results.durationSeconds} s.`,
    "",
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}, ${m.os}; load average ${m.loadAverageAtStart} at start.`,
    "",
    ...(results.note ? [`Note: ${results.note}`, ""] : []),
    rowsTable(results.rows),
    "",
    "Missed goals:",
    "",
    missedList(results.rows),
  ].join("\n");
}

/** The Markdown twin of latest.json. */
export function renderResults(results: Results): string {
  const lines = ["# Benchmark results", "", renderRun(results), ""];
  if (results.soak) lines.push(renderSoak(results.soak as SoakResults), "");
  return `${lines.join("\n")}\n`;
}
