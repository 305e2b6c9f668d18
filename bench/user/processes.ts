import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { promisify } from "node:util";

const TICK_MS = 1000 / 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

export interface ServerProcess {
  url: string;
  pid: number;
  /** CPU seconds used so far by the process and every process it started. */
  cpuSeconds(): number;
  /** CPU seconds so far by thread (`pid/tid name`, Linux), for the profiles' per-thread split. */
  threadCpuSeconds(): Map<string, number>;
  /** Waits until the process tree uses under 5 % of a core (e.g. the projector caught up). */
  quiet(maxMs?: number): Promise<void>;
  /** Last lines the process printed: for error messages. */
  tail(): string;
  stop(): Promise<void>;
}

/**
 * Starts a server as its own process group (so stopping it stops whatever it started, and
 * nothing else), waits for `ready` to match a line of its output and takes the URL from it.
 * Its output is read and dropped as it comes, as a terminal would take it.
 */
export async function startServer(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<ServerProcess> {
  const child = spawn(command, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let tail = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(" ")} not ready in ${timeoutMs} ms:\n${tail}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-4000);
      const match = ready.exec(tail);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code} before it was ready:\n${tail}`));
    });
  });
  const pid = child.pid as number;
  const cpuSeconds = () => tree(pid).reduce((sum, p) => sum + cpuTicks(p), 0) / 100;
  return {
    url,
    pid,
    cpuSeconds,
    threadCpuSeconds: () => new Map(tree(pid).flatMap(threadTicks)),
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
    tail: () => tail,
    stop: () => stopGroup(child),
  };
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid, "SIGTERM");
  const timer = setTimeout(() => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  }, 5000);
  await exited;
  clearTimeout(timer);
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

/** utime + stime of one process (or of one thread, given its `/proc/pid/task/tid`), in ticks. */
function cpuTicks(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Each thread of a process: [`pid/tid name`, CPU seconds]. */
function threadTicks(pid: number): [string, number][] {
  try {
    return readdirSync(`/proc/${pid}/task`).map((tid) => {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      return [`${pid}/${tid} ${name}`, cpuTicks(`${pid}/task/${tid}`) / 100];
    });
  } catch {
    return [];
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a TypeScript file in a fresh node (tsx's loader) and gives back what it printed on stdout. */
export async function runScript(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", file, ...args], {
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
