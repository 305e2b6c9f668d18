import { parseArgs } from "node:util";
import { reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { runLoad } from "../lib/load.js";
import { seedIncidents } from "../lib/seed.js";
import { AUTH, startStack } from "../lib/stack.js";
import { median } from "../lib/stats.js";

/**
 * CPU time per request (client, server and store are all this process), archive against the bare
 * route, alternating rounds: steadier than latency on a shared machine.
 *   tsx bench/profile/cpu-per-request.ts --what read|append|append-ids
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const { values } = parseArgs({
  options: { what: { type: "string", default: "read" }, rounds: { type: "string", default: "5" } },
});
const stack = await startStack();
const incidents = Array.from({ length: 50 }, (_, k) => `cpu-${k}`);
await seedIncidents(stack.ledger.events, incidents, values.what === "read" ? 29 : 0);
for (const id of incidents) await stack.ledger.projector.project(id);
const clients = { archive: httpClient(stack.archiveUrl, 1), raw: httpClient(stack.rawUrl, 1) };
const op = (side: "archive" | "raw", round: number) => (i: number) => {
  const id = incidents[i % incidents.length] as string;
  if (values.what === "read")
    return clients[side]
      .send("GET", side === "archive" ? `/incidents/${id}` : `/raw/${id}`)
      .then((a) => expectStatus(a, 200));
  const body = JSON.stringify(
    reportEnvelope(i, values.what === "append-ids" ? `cpu-${side}-${round}-${i}` : undefined),
  );
  const path = side === "archive" ? `/incidents/${id}/events` : `/raw/${id}/events`;
  return clients[side].send("POST", path, body, AUTH).then((a) => expectStatus(a, 201));
};
const cpu = { archive: [] as number[], raw: [] as number[] };
for (let round = -1; round < Number(values.rounds); round++) {
  for (const side of ["raw", "archive"] as const) {
    const before = process.cpuUsage();
    await runLoad({ total: 1500, concurrency: 1, op: op(side, round) });
    const used = process.cpuUsage(before);
    if (round >= 0) cpu[side].push((used.user + used.system) / 1500);
  }
}
const a = median(cpu.archive);
const r = median(cpu.raw);
process.stdout.write(
  `${values.what}: CPU per request archive ${a.toFixed(0)} µs, bare route ${r.toFixed(0)} µs: ${(a / r).toFixed(2)}×\n`,
);
for (const c of Object.values(clients)) c.close();
await stack.close();
