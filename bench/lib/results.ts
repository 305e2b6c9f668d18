import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";

/** A goal on the ratio, on the measured value itself (e.g. lag in ms), or none (a context row). */
export type Goal =
  | { on: "ratio"; op: "<=" | ">="; target: number }
  | { on: "value"; op: "<=" | ">="; target: number }
  | { on: "none"; note: string };

export interface Row {
  /** Stable key, e.g. `append.w16.many.eventId.p50`; the test and the notes match on it. */
  id: string;
  group: string;
  title: string;
  unit: string;
  /** Ours. */
  subject: number;
  /** What it is compared with, measured in the same run. */
  baseline: number;
  baselineName: string;
  /** subject ÷ baseline: for times lower is better, for rates higher is better. */
  ratio: number;
  goal: Goal;
  /** null on context rows. */
  met: boolean | null;
  /** What else the row shows (e.g. what a bundle is made of). */
  detail?: string;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  os: string;
  /** 1-minute load average when the run started: other work on the machine skews absolute times. */
  loadAverageAtStart: number;
}

export interface Results {
  benchmark: "incident-ledger";
  quick: boolean;
  date: string;
  commit: { sha: string; dirty: boolean };
  machine: Machine;
  durationSeconds: number;
  /** Said by whoever ran it (`--note`), e.g. what else the machine was doing. */
  note?: string;
  rows: Row[];
  /** Written by `npm run soak`; kept when the benchmark is re-run. */
  soak?: unknown;
}

export function machine(): Machine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? "unknown",
    cores: cpu.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    os: `${platform()} ${release()}`,
    loadAverageAtStart: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
}

export function gitCommit(cwd = process.cwd()): { sha: string; dirty: boolean } {
  try {
    const sha = execFileSync("git", ["rev-parse", "HEAD"], { cwd, encoding: "utf8" }).trim();
    const status = execFileSync("git", ["status", "--porcelain", "--", "events", "functions"], {
      cwd,
      encoding: "utf8",
    });
    return { sha, dirty: status.trim() !== "" };
  } catch {
    return { sha: "unknown", dirty: false };
  }
}

export function met(goal: Goal, subject: number, ratio: number): boolean | null {
  if (goal.on === "none") return null;
  const value = goal.on === "ratio" ? ratio : subject;
  return goal.op === "<=" ? value <= goal.target : value >= goal.target;
}

export function readResults(dir: string): Results | null {
  const file = join(dir, "latest.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Results) : null;
}

export function writeResults(dir: string, results: Results, markdown: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, "latest.md"), markdown);
}
