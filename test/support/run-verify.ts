import { runScript, type ScriptRun } from "./run-script.js";

/** `npm run verify -- <args>` as a user runs it: a separate process, its exit code and output. */
export function runVerify(args: string[]): Promise<ScriptRun> {
  return runScript("scripts/verify/main.ts", args);
}
