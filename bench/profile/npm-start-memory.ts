import { startLocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/logger.js";

// `npm start` as functions/local/main.ts wires it, but with dynalite in memory (no DATA_DIR):
// for bench/profile/npm-start.ts --memory, to tell the disk store's share apart.
const env = process.env;
const server = await startLocalServer({
  port: Number(env.PORT ?? 0),
  dynamoPort: Number(env.DYNAMO_PORT ?? 0),
  log: createLogger(),
  ...(env.LEDGER_TOKEN ? { token: env.LEDGER_TOKEN } : {}),
});
process.stderr.write(`  API          ${server.url}\n`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    await server.close();
    process.exit(0);
  });
}
