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
      "The cores are shared with other work, so absolute times are noisy: every row is a ratio against a baseline measured side by side, alternating rounds, medians reported.",
    "",
    ...(results.note ? [`Note: ${results.note}`, ""] : []),
    ...(results.rows.some((r) => r.id.startsWith("user."))
      ? [
          "The headline rows are measured as a user meets the archive: `npm start` (`tsx functions/local/main.ts`, fresh DATA_DIR, its own process: HTTP server, app, in-process projector and dynalite together) against a bare server in a process of its own (`bench/user/bare-server.ts`: Hono + `@hono/node-server` + in-process dynalite; POST does one conditional PutItem of the body, GET one GetItem of a 3 KB item), loaded by autocannon from a third process (`bench/user/load-generator.ts`), each load alternately on each side with the order swapped every round, both servers left to go quiet between runs; the figure is the median over rounds. Server CPU per request is read from /proc for the server's process tree, the projector's catch-up after a run included. Projection lag is measured from outside: see the row's note. The other groups run in the benchmark's own process, as labelled.",
          "",
        ]
      : []),
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
