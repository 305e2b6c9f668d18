import { startLocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/logger.js";
import { reportEnvelope } from "../lib/fixtures.js";
import { httpClient } from "../lib/http-client.js";
import { seedIncidents } from "../lib/seed.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  token: "t0123456789",
  log: createLogger("warn"),
});
const ids = Array.from({ length: 40 }, (_, k) => `lag-${k}`);
await seedIncidents(server.ledger.events, ids);
await server.stream.idle();
const views = server.ledger.views;
const projector = server.ledger.projector;
const project = projector.project.bind(projector);
projector.project = async (id: string) => {
  const t = performance.now();
  const r = await project(id);
  process.stderr.write(`project ${id} ${r.from}->${r.to} ${(performance.now() - t).toFixed(1)}ms\n`);
  return r;
};
void views;
const client = httpClient(server.url, 1);
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  await client.send("POST", `/incidents/${ids[i % ids.length]}/events`, JSON.stringify(reportEnvelope(i)), {
    authorization: "Bearer t0123456789",
  });
  process.stderr.write(`ack ${i} ${(performance.now() - t).toFixed(1)}ms\n`);
}
await server.stream.idle();
client.close();
await server.close();
