import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LocalServer } from "../../functions/local/server.js";
import { post } from "../support/archive.js";

export interface SampleRow {
  incidentId: string;
  // biome-ignore lint/suspicious/noExplicitAny: the sample's envelopes are posted as they are.
  event: any;
}

export const SAMPLE: SampleRow[] = readFileSync(
  fileURLToPath(new URL("../../sample/kramatorsk-article.ndjson", import.meta.url)),
  "utf8",
)
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as SampleRow);

/** Posts the sample through the API, like `npm run sample`. */
export async function loadSample(base: string): Promise<void> {
  for (const { incidentId, event } of SAMPLE) {
    const answer = await post(base, incidentId, event);
    if (answer.status !== 201 && answer.status !== 200)
      throw new Error(`posting ${event.eventId} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }
}

/** Waits until the log's latest checkpoint covers at least `size` leaves (the sequencer publishes within a second). */
export async function waitForCheckpoint(server: LocalServer, size: number, seconds = 20) {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const checkpoint = await server.ledger.logStore.latestCheckpoint();
    if (checkpoint && checkpoint.size >= size) return checkpoint;
    if (Date.now() > until)
      throw new Error(
        `no checkpoint of size ${size} after ${seconds} s (latest: ${checkpoint?.size ?? "none"})`,
      );
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function text(
  base: string,
  path: string,
): Promise<{ status: number; headers: Headers; body: string }> {
  const answer = await fetch(`${base}${path}`);
  return { status: answer.status, headers: answer.headers, body: await answer.text() };
}

/**
 * Runs Python's standard csv and json modules over the files, as a researcher would, and
 * returns what they read: per CSV row its cells by column name, and per NDJSON line the event.
 */
export function readWithPython(
  csvPath: string,
  ndjsonPath: string,
): {
  rows: Record<string, string>[];
  events: { incidentId: string; version: number; eventId: string; hash: string; type: string }[];
} {
  const program = [
    "import csv, json, sys",
    "with open(sys.argv[1], newline='', encoding='utf-8') as f:",
    "    rows = list(csv.DictReader(f))",
    "with open(sys.argv[2], encoding='utf-8') as f:",
    "    events = [json.loads(line) for line in f]",
    "print(json.dumps({'rows': rows, 'events': events}))",
  ].join("\n");
  const out = execFileSync("python3", ["-c", program, csvPath, ndjsonPath], { encoding: "utf8" });
  return JSON.parse(out);
}
