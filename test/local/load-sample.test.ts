import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, startArchive, TOKEN } from "../support/archive.js";
import { runScript } from "../support/run-script.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `npm run sample` as the README runs it: its own process, against `url`. */
function loadSample(url: string) {
  return runScript("scripts/load-sample.ts", [], { LEDGER_URL: url, LEDGER_TOKEN: TOKEN });
}

/** The line the README quotes as what `npm run sample` prints at its end. */
function readmeSampleLine(): string {
  const readme = readFileSync(`${root}/README.md`, "utf8");
  const quoted = /LEDGER_TOKEN=… npm run sample .*\n# (.+)\n/.exec(readme);
  if (!quoted?.[1]) throw new Error("the README no longer shows what npm run sample prints");
  return quoted[1];
}

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

describe("npm run sample, as the README shows it", () => {
  it("stores every sample event and says so as the README quotes; a second run stores nothing", async () => {
    const events = readFileSync(`${root}/sample/kramatorsk-article.ndjson`, "utf8").trim().split("\n");
    const first = await loadSample(archive.url);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`\n${readmeSampleLine()}\n`);
    expect(first.stdout).toContain(`${events.length} events: ${events.length} stored, 0 already there`);
    const station = await call(archive.url, "GET", "/incidents/kramatorsk-station-2022-04-08");
    expect(station.status).toBe(200);

    const again = await loadSample(archive.url);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `${events.length} events: 0 stored, ${events.length} already there, 0 failed.`,
    );
  });
});
