import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ScanCommand, type ScanCommandInput } from "@aws-sdk/client-dynamodb";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { tableNamesFromEnv } from "../../functions/store/table-design.js";
import { type ChildServer, startChildServer } from "../../test/support/child-server.js";
import { makeHistory, storeHistory } from "../lib/history.js";
import { ROOT } from "../lib/paths.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row, valueGoal } from "../lib/row.js";
import { eachLimited } from "../lib/seed.js";
import type { Suite } from "../lib/suite.js";

/** Segments of the raw Scan baseline (the rebuild's own default). */
const SEGMENTS = 4;

/**
 * `npm run rebuild` as a user runs it: against a running `npm start`'s dynalite endpoint, whose
 * events table holds commit items that no view was ever made of (written straight into the
 * store, as after the views table was lost). It must print progress while it runs, finish,
 * and build every view; its rate is set beside a raw parallel Scan of the same items.
 */
export const rebuild: Suite = {
  name: "Rebuild",
  steps: () => 3,
  async run(ctx) {
    const { sizes, progress } = ctx;
    const dataDir = mkdtempSync(join(tmpdir(), "ledger-bench-rebuild-"));
    let server: ChildServer | undefined;
    try {
      server = await startChildServer({ DATA_DIR: dataDir, LOG_LEVEL: "warn" });
      const db = createDynamoClient(server.dynamoEndpoint);
      const tables = tableNamesFromEnv({});
      const size = sizes.rebuildEvents.toLocaleString("en-US");
      progress.note(`sealing and storing ${size} events`);
      const history = makeHistory(sizes.rebuildIncidents, sizes.rebuildEvents);
      const stored = await storeHistory(db, tables.events, history);
      progress.step(`stored ${stored.toLocaleString("en-US")} events`);

      const scanStarted = performance.now();
      await rawScan(db, tables.events, stored);
      const scanRate = stored / ((performance.now() - scanStarted) / 1000);
      db.destroy();
      progress.step("raw Scan");

      progress.note(`npm run rebuild of ${size} events`);
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ["--import", "tsx", "scripts/rebuild.ts"],
        {
          cwd: ROOT,
          env: { ...process.env, DYNAMODB_ENDPOINT: server.dynamoEndpoint },
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      // The script's own clock, from its first store call to its report (node and tsx starting are not the rebuild).
      const report = JSON.parse(stdout.trim().split("\n").pop() as string) as {
        seconds: number;
        built: number;
        failed: unknown[];
      };
      const { seconds } = report;
      const progressLines = stderr.split("\n").filter((line) => /^rebuild: .*events folded/.test(line));
      progress.step(`rebuild in ${seconds.toFixed(1)} s`);

      const group = `\`npm run rebuild\` of ${size} events (${history.size} incidents, no view yet) against \`npm start\``;
      const detail = `${progressLines.length} progress lines on stderr; the last: "${progressLines.at(-1) ?? ""}".`;
      return [
        row({
          id: "rebuild.finished",
          group,
          title: "views built when it finished",
          unit: "views",
          subject: report.built,
          baseline: history.size,
          baselineName: "incidents stored",
          goal: ratioGoal(">=", 1),
          detail: `${report.failed.length} failed.`,
        }),
        row({
          id: "rebuild.progress",
          group,
          title: "progress lines printed",
          unit: "lines",
          subject: progressLines.length,
          baseline: 1,
          baselineName: "at least one",
          goal: valueGoal(">=", 1),
          detail,
        }),
        row({
          id: "rebuild.rate",
          group,
          title: "rebuild speed (the report's `seconds`)",
          unit: "events/s",
          subject: stored / seconds,
          baseline: scanRate,
          baselineName: `raw parallel Scan of the same items (${SEGMENTS} segments)`,
          goal: context("context: how far the fold and the writes are from the read alone"),
        }),
      ] satisfies Row[];
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

/** Every item of the table by a parallel Scan, as the rebuild reads them. */
async function rawScan(
  db: ReturnType<typeof createDynamoClient>,
  table: string,
  expected: number,
): Promise<void> {
  let count = 0;
  await eachLimited([...Array(SEGMENTS).keys()], SEGMENTS, async (segment) => {
    let start: ScanCommandInput["ExclusiveStartKey"];
    do {
      const out = await db.send(
        new ScanCommand({
          TableName: table,
          Segment: segment,
          TotalSegments: SEGMENTS,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      count += out.Items?.length ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
  });
  if (count !== expected) throw new Error(`raw Scan read ${count} items, expected ${expected}`);
}
