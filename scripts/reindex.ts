import { createLedger } from "../functions/ledger.js";
import { createLogger } from "../functions/logger.js";
import { createTables } from "../functions/store/create-tables.js";
import { createDynamoClient } from "../functions/store/dynamo-client.js";
import { tableNamesFromEnv } from "../functions/store/table-design.js";

/**
 * `npm run reindex`: brings every incident's entries in the finding index up to its current
 * summary — for an archive whose views were projected before the index existed (the projector
 * indexes only what it projects), or after the search table was lost. The sources come from the
 * summary and from the incident's events not yet indexed (a summary lists only the latest
 * statements and figures; its earlier speakers and publishers stay findable). Idempotent: an
 * incident already indexed at its version costs one read. Talks to DYNAMODB_ENDPOINT, else the running
 * local server's dynalite (`DYNAMO_PORT`, 8000); in AWS give no endpoint and the table names.
 */
const env = process.env;
env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const endpoint =
  env.DYNAMODB_ENDPOINT ?? (env.AWS_REGION ? undefined : `http://127.0.0.1:${env.DYNAMO_PORT ?? 8000}`);
const db = createDynamoClient(endpoint);
const tables = tableNamesFromEnv(env);
const ledger = createLedger({ db, tables, log: createLogger("warn") });
const IN_FLIGHT = 8;

try {
  if (endpoint) await createTables(db, tables);
  const { finding } = ledger;
  if (!finding) throw new Error("no search table is configured (SEARCH_TABLE)");
  const started = Date.now();
  let done = 0;
  let failed = 0;
  const running = new Set<Promise<void>>();
  const reindexOne = async (incidentId: string, version: number): Promise<void> => {
    const indexed = (await finding.indexedVersion(incidentId)) ?? 0;
    if (indexed >= version) return;
    // The index reads the events past what it holds for their sources and quotes.
    await finding.update(incidentId);
  };
  for await (const [incidentId, version] of ledger.views.versions()) {
    // A view's other items (snapshots, pieces, checks) carry keys with a '#': not incidents.
    if (incidentId.includes("#")) continue;
    const work = reindexOne(incidentId, version)
      .then(() => {
        done += 1;
      })
      .catch((error: Error) => {
        failed += 1;
        process.stderr.write(`reindex: ${incidentId}: ${error.message}\n`);
      })
      .finally(() => running.delete(work));
    running.add(work);
    if (running.size >= IN_FLIGHT) await Promise.race(running);
  }
  await Promise.all(running);
  process.stdout.write(
    `${JSON.stringify({ endpoint: endpoint ?? "aws", incidents: done, failed, seconds: (Date.now() - started) / 1000 })}\n`,
  );
  process.exitCode = failed > 0 ? 1 : 0;
} finally {
  db.destroy();
}
