import { createLedger } from "../functions/ledger.js";
import { createLogger } from "../functions/logger.js";
import { repairViews } from "../functions/projector/view-repair.js";
import { createDynamoClient } from "../functions/store/dynamo-client.js";
import { tableNamesFromEnv } from "../functions/store/table-design.js";

/**
 * `npm run rebuild`: re-projects every incident whose view lags its head or is missing, with
 * the same code the view-repair Lambda runs in AWS. It talks to a DynamoDB endpoint — by
 * default the running local server's dynalite (`DYNAMO_PORT`, 8000); set DYNAMODB_ENDPOINT
 * for another (dynalite keeps its LevelDB files locked while the server runs, so the endpoint
 * is the way in). Prints a progress line on stderr and a JSON report on stdout.
 */
const env = process.env;
env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const endpoint = env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${env.DYNAMO_PORT ?? 8000}`;
const db = createDynamoClient(endpoint);
const log = createLogger((env.LOG_LEVEL as "warn" | undefined) ?? "warn", (line) =>
  process.stderr.write(`\n${line}\n`),
);
const ledger = createLedger({ db, tables: tableNamesFromEnv(env), log });

const started = Date.now();
const tty = process.stderr.isTTY;
let lastLine = 0;
try {
  const report = await repairViews(
    { ...ledger, log },
    {
      onProgress: ({ done, total, events }) => {
        // On a terminal one line rewrites itself; in a log, a line every 2 s at most.
        if (!tty && (total === undefined || done < total) && Date.now() - lastLine < 2000) return;
        lastLine = Date.now();
        const rate = Math.round(events / Math.max(0.001, (Date.now() - started) / 1000));
        // A rebuild of an empty views table learns how many incidents there are as it scans.
        const views = total === undefined ? `${done} views built` : `${done}/${total} lagging views repaired`;
        const line = `rebuild: ${views}, ${events.toLocaleString("en-US")} events folded (${rate.toLocaleString("en-US")}/s)`;
        process.stderr.write(tty ? `\r${line}` : `${line}\n`);
      },
    },
  );
  if (tty && report.built + report.caughtUp > 0) process.stderr.write("\n");
  if (report.built + report.caughtUp === 0) {
    process.stderr.write(`rebuild: all ${report.incidents} views are up to date with their events\n`);
  }
  process.stdout.write(
    `${JSON.stringify({ endpoint, seconds: (Date.now() - started) / 1000, ...report })}\n`,
  );
  process.exitCode = report.failed.length > 0 ? 1 : 0;
} catch (error) {
  process.stderr.write(
    `\nrebuild failed against ${endpoint}: ${String(error)}\n(is \`npm start\` running? set DYNAMO_PORT or DYNAMODB_ENDPOINT)\n`,
  );
  process.exitCode = 2;
} finally {
  db.destroy();
}
