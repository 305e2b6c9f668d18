import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TOKEN } from "../support/archive.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/import/", import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run import -- <args>` as a user runs it: its own process, against `url`. */
export function startImport(url: string, args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/import/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, LEDGER_URL: url, LEDGER_TOKEN: TOKEN },
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
  const done = new Promise<Run>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

export function runImport(url: string, args: string[]): Promise<Run> {
  return startImport(url, args).done;
}

/** Every stored event of an incident, through the API (null when the incident does not exist). */
export async function storedEvents(
  url: string,
  incidentId: string,
): Promise<Record<string, unknown>[] | null> {
  const out: Record<string, unknown>[] = [];
  let after = 0;
  for (;;) {
    const response = await fetch(`${url}/incidents/${incidentId}/events?after=${after}&limit=500`);
    if (response.status === 404) return null;
    const page = (await response.json()) as { items: Record<string, unknown>[]; next: number | null };
    out.push(...page.items);
    if (page.next === null) return out;
    after = page.next;
  }
}
