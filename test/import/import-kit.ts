import { fileURLToPath } from "node:url";
import { TOKEN } from "../support/archive.js";
import { type ScriptRun, startScript } from "../support/run-script.js";

export const FIXTURES = fileURLToPath(new URL("../fixtures/import/", import.meta.url));

export type Run = ScriptRun;

/** `npm run import -- <args>` as a user runs it: its own process, against `url`. */
export function startImport(url: string, args: string[]): ReturnType<typeof startScript> {
  return startScript("scripts/import/main.ts", args, { LEDGER_URL: url, LEDGER_TOKEN: TOKEN });
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
