import { QueryCommand, type QueryCommandInput } from "@aws-sdk/client-dynamodb";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/log.js";
import type { Item } from "../../functions/store/commit-item.js";
import { seedIncidents } from "../lib/seed.js";
import { percentile } from "../lib/stats.js";
import { measureLag, watchSaves } from "../suites/projection-lag.js";

/**
 * Projection lag at 16 writers as shipped, and with the projector's catch-up Query starting at
 * the view's version + 1 instead of 24 commits earlier, and as shipped but fed per incident as
 * commits arrive instead of in 100-record batches (each patched on this instance only):
 *   tsx bench/profile/lag-whatif.ts [appends]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const appends = Number(process.argv[2] ?? 1500);
for (const patched of [false, true, "coalescing-feed"] as const) {
  const server = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: "bench-lag-token-0123456789",
    log: silentLogger,
  });
  const saves = watchSaves(server);
  const incidents = Array.from({ length: 200 }, (_, k) => `whatif-${k}`);
  await seedIncidents(server.ledger.events, incidents, 30);
  await server.stream.idle();
  if (patched === "coalescing-feed") coalescingFeed(server);
  else if (patched) {
    const db = (
      server.ledger.events as unknown as {
        db: {
          send: (
            c: QueryCommand,
          ) => Promise<{ Items?: Item[]; LastEvaluatedKey?: QueryCommandInput["ExclusiveStartKey"] }>;
        };
      }
    ).db;
    server.ledger.events.commitItems = async function* (incidentId: string, after = 0) {
      let start: QueryCommandInput["ExclusiveStartKey"];
      do {
        const out = await db.send(
          new QueryCommand({
            TableName: server.tables.events,
            KeyConditionExpression: "incidentId = :i AND version > :v",
            ExpressionAttributeValues: { ":i": { S: incidentId }, ":v": { N: String(after) } },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) yield item;
        start = out.LastEvaluatedKey;
      } while (start);
    };
  }
  const lags = await measureLag(server, saves, incidents, 16, appends);
  process.stdout.write(
    `${patched === "coalescing-feed" ? "as shipped, but fed per incident as commits arrive (no 100-record batches)" : patched ? "Query from the view's version" : "as shipped (Query 24 commits back)"}: lag p50 ${percentile(lags, 50).toFixed(1)} ms, p99 ${percentile(lags, 99).toFixed(1)} ms\n`,
  );
  await server.close();
}

/** Each incident projected as soon as a commit for it arrives; commits arriving meanwhile coalesce into one more pass. */
function coalescingFeed(server: LocalServer): void {
  const running = new Map<string, Promise<void>>();
  const dirty = new Set<string>();
  const run = (incidentId: string): Promise<void> =>
    server.ledger.projector.project(incidentId).then(() => {
      if (dirty.delete(incidentId)) return run(incidentId);
      running.delete(incidentId);
    });
  server.stream.publish = (item: Item) => {
    const incidentId = item.incidentId?.S as string;
    if (running.has(incidentId)) dirty.add(incidentId);
    else running.set(incidentId, run(incidentId));
  };
  server.stream.idle = async () => {
    while (running.size > 0) await Promise.all(running.values());
  };
}
