import type { Goal, Row } from "./results.js";

export function num(value: number, unit: string): string {
  if (!Number.isFinite(value)) return "–";
  if (unit === "ms") return value < 10 ? value.toFixed(2) : value.toFixed(1);
  if (unit === "KB") return value.toFixed(0);
  return Math.round(value).toLocaleString("en-US");
}

export function ratioText(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}×` : "–";
}

export function goalText(goal: Goal, unit: string): string {
  if (goal.on === "none") return "context";
  const op = goal.op === "<=" ? "≤" : "≥";
  return goal.on === "ratio" ? `${op} ${goal.target}×` : `${op} ${goal.target} ${unit}`;
}

export function verdict(row: Row): string {
  return row.met === null ? "" : row.met ? "met" : "**missed**";
}

/** One Markdown table; rows of a group follow each other under a group heading row. */
export function rowsTable(rows: readonly Row[]): string {
  const lines = [
    "| measure | ours | baseline | ratio | goal | |",
    "| --- | ---: | ---: | ---: | --- | --- |",
  ];
  let group = "";
  for (const row of rows) {
    if (row.group !== group) {
      group = row.group;
      lines.push(`| **${group}** | | | | | |`);
    }
    const base = `${num(row.baseline, row.unit)} ${row.unit} (${row.baselineName})`;
    lines.push(
      `| ${row.title} | ${num(row.subject, row.unit)} ${row.unit} | ${base} | ${ratioText(row.ratio)} | ${goalText(row.goal, row.unit)} | ${verdict(row)} |`,
    );
  }
  return lines.join("\n");
}

/** The missed goals, one line each, with what else the row shows. */
export function missedList(rows: readonly Row[]): string {
  const missed = rows.filter((r) => r.met === false);
  if (missed.length === 0) return "Every goal was met in this run.";
  return missed
    .map(
      (r) =>
        `- **${r.group}: ${r.title}** (${ratioText(r.ratio)}, goal ${goalText(r.goal, r.unit)}).${r.detail ? ` ${r.detail}` : ""}`,
    )
    .join("\n");
}
