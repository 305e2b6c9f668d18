import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * `npm run sample`: posts the sample incidents (sample/kramatorsk-article.ndjson, built from
 * shared/sample/kramatorsk-article.txt) through the HTTP API, like any client would. Event ids
 * are fixed, so a second run stores nothing new.
 */
const base = (process.env.LEDGER_URL ?? "http://localhost:3000").replace(/\/$/, "");
const token = process.env.LEDGER_TOKEN;
const file = fileURLToPath(new URL("../sample/kramatorsk-article.ndjson", import.meta.url));

if (!token) {
  process.stderr.write("LEDGER_TOKEN is not set: use the write token `npm start` printed.\n");
  process.exit(2);
}

const lines = readFileSync(file, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "");
const rows = lines.map((line, i) => {
  try {
    return JSON.parse(line) as { incidentId: string; event: { eventId: string; type: string } };
  } catch {
    throw new Error(`${file}:${i + 1} is not JSON`);
  }
});

const counts = { stored: 0, already: 0, failed: 0 };
const width = String(rows.length).length;
for (const [i, { incidentId, event }] of rows.entries()) {
  let answer: Response;
  try {
    answer = await fetch(`${base}/incidents/${incidentId}/events`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(event),
    });
  } catch (error) {
    process.stderr.write(`cannot reach ${base}: ${(error as Error).message}. Is \`npm start\` running?\n`);
    process.exit(1);
  }
  const body = (await answer.json()) as { version?: number; detail?: string };
  const outcome = answer.status === 201 ? "stored" : answer.status === 200 ? "already" : "failed";
  counts[outcome] += 1;
  const note =
    outcome === "stored"
      ? `stored as v${body.version}`
      : outcome === "already"
        ? "already stored"
        : `${answer.status} ${body.detail}`;
  process.stdout.write(
    `[${String(i + 1).padStart(width)}/${rows.length}] ${incidentId}  ${event.type.padEnd(18)} ${note}\n`,
  );
  if (answer.status === 401) {
    process.stderr.write("the server refused the token: use the one `npm start` printed.\n");
    process.exit(1);
  }
}
process.stdout.write(
  `\n${rows.length} events: ${counts.stored} stored, ${counts.already} already there, ${counts.failed} failed.\n` +
    `Open ${base}/ or curl ${base}/incidents/kramatorsk-station-2022-04-08\n`,
);
process.exit(counts.failed > 0 ? 1 : 0);
