import { missedList, rowsTable } from "./lib/format.js";
import type { Results } from "./lib/results.js";
import { renderSoak, type SoakResults } from "./soak/report.js";

/** The Markdown twin of latest.json: what the README links to. */
export function renderResults(results: Results): string {
  const m = results.machine;
  const lines = [
    "# Benchmark results",
    "",
    `${results.quick ? "Quick run (small sizes: a smoke test, not figures to quote)" : "Full run"} of \`npm run bench\` on ${results.date.slice(0, 10)}, commit \`${results.commit.sha.slice(0, 12)}\`${results.commit.dirty ? " (with uncommitted changes in events/ or functions/)" : ""}.`,
    "",
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}, ${m.os}; load average ${m.loadAverageAtStart} at start. ` +
      "The cores are shared with other work, so absolute times are noisy: every row is a ratio against a baseline measured side by side in the same process, alternating rounds, medians reported.",
    "",
    rowsTable(results.rows),
    "",
    "## Missed goals",
    "",
    missedList(results.rows),
    "",
  ];
  if (results.soak) lines.push(renderSoak(results.soak as SoakResults), "");
  return `${lines.join("\n")}\n`;
}
