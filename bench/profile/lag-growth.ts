import { startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { seedIncidents } from "../lib/seed.js";
import { percentile } from "../lib/stats.js";
import { measureLag, watchSaves } from "../suites/projection-lag.js";

/**
 * Does the lag under 16 writers settle, or grow with the length of the run (a backlog)?
 *   tsx bench/profile/lag-growth.ts 500 1500 3000
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
for (const appends of process.argv.slice(2).map(Number)) {
  const server = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: "bench-lag-token-0123456789",
    log: silentLogger,
  });
  const saves = watchSaves(server);
  const incidents = Array.from({ length: 200 }, (_, k) => `growth-${k}`);
  await seedIncidents(server.ledger.events, incidents, 30);
  await server.stream.idle();
  const started = performance.now();
  const lags = await measureLag(server, saves, incidents, 16, appends);
  const seconds = (performance.now() - started) / 1000;
  const tail = lags.slice(-Math.ceil(lags.length / 10));
  process.stdout.write(
    `${appends} appends in ${seconds.toFixed(1)} s: lag p50 ${percentile(lags, 50).toFixed(0)} ms, p99 ${percentile(lags, 99).toFixed(0)} ms; last tenth p50 ${percentile(tail, 50).toFixed(0)} ms\n`,
  );
  await server.close();
}
