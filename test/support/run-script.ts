import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * One of the project's commands (`npm run import`, `verify`, `sample`, …) as a user runs it: its
 * script in a process of its own, from the project's root, with `env` over this environment.
 */
export function startScript(
  script: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<ScriptRun> } {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: root,
    // As npm runs it when typed in the project's root (INIT_CWD: scripts/where-typed.ts).
    env: { ...process.env, INIT_CWD: root, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c) => {
    stdout += c;
  });
  child.stderr?.on("data", (c) => {
    stderr += c;
  });
  const done = new Promise<ScriptRun>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

/** startScript, to its end: exit code and everything it printed. */
export function runScript(
  script: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<ScriptRun> {
  return startScript(script, args, env).done;
}
