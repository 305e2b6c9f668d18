import { parseArgs } from "node:util";
import { reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { runLoad } from "../lib/load.js";
import { seedIncidents } from "../lib/seed.js";
import { AUTH, startStack } from "../lib/stack.js";

/**
 * One side of one benchmark row, alone, for `node --cpu-prof`:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile/scenario.ts --side archive --ids
 * then `tsx bench/profile/analyze.ts /tmp/prof`. Run it with `--side raw` to see the floor's profile.
 */
const { values } = parseArgs({
  options: {
    side: { type: "string", default: "archive" },
    ids: { type: "boolean", default: false },
    writers: { type: "string", default: "1" },
    incidents: { type: "string", default: "200" },
    requests: { type: "string", default: "3000" },
    read: { type: "boolean", default: false },
  },
});
const writers = Number(values.writers);
const stack = await startStack();
const incidents = Array.from({ length: Number(values.incidents) }, (_, k) => `profile-${k}`);
await seedIncidents(stack.ledger.events, incidents, values.read ? 20 : 0);
if (values.read) for (const id of incidents) await stack.ledger.projector.project(id);
const archive = values.side === "archive";
const client = httpClient(archive ? stack.archiveUrl : stack.rawUrl, writers);
const path = (i: number) => `/${archive ? "incidents" : "raw"}/${incidents[i % incidents.length]}`;
const op = (round: number) => (i: number) =>
  values.read
    ? client.send("GET", path(i)).then((a) => expectStatus(a, 200))
    : client
        .send(
          "POST",
          `${path(i)}/events`,
          JSON.stringify(reportEnvelope(i, values.ids ? `p${round}-${i}-abcdefgh` : undefined)),
          AUTH,
        )
        .then((a) => expectStatus(a, 201));
await runLoad({ total: 300, concurrency: writers, op: op(0) });
const result = await runLoad({ total: Number(values.requests), concurrency: writers, op: op(1) });
process.stderr.write(`${values.side}: ${JSON.stringify(result)}\n`);
client.close();
await stack.close();
