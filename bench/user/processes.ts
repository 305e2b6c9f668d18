import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";
import { ROOT } from "../lib/paths.js";

const TICK_MS = 1000 / 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

/** What the headline rows read of a server process from /proc (Linux). */
export interface ProcessMeter {
  /** CPU seconds used so far by the process and every process it started. */
  cpuSeconds(): number;
  /** Waits until the process tree uses under 5 % of a core (e.g. the projector caught up). */
  quiet(maxMs?: number): Promise<void>;
}

export function meter(pid: number): ProcessMeter {
  const cpuSeconds = () => tree(pid).reduce((sum, p) => sum + cpuTicks(p), 0) / 100;
  return {
    cpuSeconds,
    async quiet(maxMs = 180_000) {
      const started = performance.now();
      let before = cpuSeconds();
      while (performance.now() - started < maxMs) {
        await sleep(250);
        const now = cpuSeconds();
        if (now - before < 0.25 * 0.05 + TICK_MS / 1000) return;
        before = now;
      }
    },
  };
}

/** The pid and its descendants, from /proc (Linux); just the pid elsewhere. */
function tree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i] as number;
    try {
      for (const task of readdirSync(`/proc/${p}/task`)) {
        const children = readFileSync(`/proc/${p}/task/${task}/children`, "utf8").trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      }
    } catch {
      // gone, or no /proc
    }
  }
  return out;
}

/** utime + stime of one process, in ticks. */
function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a TypeScript file (from the repository's root) in a fresh node and gives back its stdout. */
export async function runScript(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", file, ...args], {
    cwd: ROOT,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
