import { parseArgs } from "node:util";

/**
 * `npm run release -- --name 2026-11 --note "…"`: names the archive's latest signed checkpoint
 * as a release (POST /releases), using LEDGER_URL (default http://localhost:3000) and
 * LEDGER_TOKEN, and prints its citation line and export links.
 */
const base = (process.env.LEDGER_URL ?? "http://localhost:3000").replace(/\/$/, "");
const token = process.env.LEDGER_TOKEN;

let values: { name?: string; note?: string };
try {
  ({ values } = parseArgs({ options: { name: { type: "string" }, note: { type: "string" } }, strict: true }));
} catch (error) {
  process.stderr.write(
    `${(error as Error).message}\nusage: npm run release -- --name <name> [--note <text>]\n`,
  );
  process.exit(2);
}
if (!values.name) {
  process.stderr.write("usage: npm run release -- --name <name> [--note <text>]\n");
  process.exit(2);
}
if (!token) {
  process.stderr.write("LEDGER_TOKEN is not set: use the write token `npm start` printed.\n");
  process.exit(2);
}

let answer: Response;
try {
  answer = await fetch(`${base}/releases`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ name: values.name, note: values.note ?? "" }),
  });
} catch (error) {
  process.stderr.write(`cannot reach ${base}: ${(error as Error).message}. Is \`npm start\` running?\n`);
  process.exit(1);
}
const body = (await answer.json()) as {
  detail?: string;
  number?: number;
  treeSize?: number;
  citation?: string;
  links?: Record<string, string>;
};
if (answer.status !== 201) {
  process.stderr.write(`release refused: ${answer.status} ${body.detail ?? ""}\n`);
  process.exit(1);
}
process.stdout.write(
  [
    `release ${values.name} (number ${body.number}) names tree size ${body.treeSize}`,
    `cite:   ${body.citation}`,
    ...Object.entries(body.links ?? {}).map(([name, url]) => `${name.padEnd(13)} ${url}`),
    "",
  ].join("\n"),
);
