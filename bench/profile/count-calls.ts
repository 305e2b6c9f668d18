import { reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { seedIncidents } from "../lib/seed.js";
import { AUTH, startStack } from "../lib/stack.js";

/**
 * How many DynamoDB calls, of which kinds, one HTTP request costs the archive (the floor is one),
 * its projection included (local wiring: the projector runs in this process after each commit):
 *   tsx bench/profile/count-calls.ts [incidents]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const stack = await startStack({ projector: true });
const calls = new Map<string, number>();
const send = stack.db.send.bind(stack.db) as (command: unknown) => Promise<{ Items?: unknown[] }>;
(stack.db as unknown as { send: typeof send }).send = async (command) => {
  const name = (command as object).constructor.name;
  calls.set(name, (calls.get(name) ?? 0) + 1);
  const out = await send(command);
  if (out?.Items) calls.set(`${name} items`, (calls.get(`${name} items`) ?? 0) + out.Items.length);
  return out;
};
const ids = Array.from({ length: Number(process.argv[2] ?? 20) }, (_, k) => `count-${k}`);
await seedIncidents(stack.ledger.events, ids, 30);
for (const id of ids) await stack.ledger.projector.project(id);
const client = httpClient(stack.archiveUrl, 1);
const measure = async (label: string, n: number, op: (i: number) => Promise<unknown>) => {
  calls.clear();
  for (let i = 0; i < n; i++) await op(i);
  await stack.stream?.idle();
  const per = [...calls].map(([name, count]) => `${name} ${(count / n).toFixed(2)}`).join(", ");
  process.stdout.write(`${label}: ${per}\n`);
};
const post = (eventId?: string) => (i: number) =>
  client
    .send(
      "POST",
      `/incidents/${ids[i % ids.length]}/events`,
      JSON.stringify(reportEnvelope(i, eventId ? `${eventId}-${i}` : undefined)),
      AUTH,
    )
    .then((a) => expectStatus(a, 201));
await measure("append, no eventId (warm head)", 100, post());
await measure("append, client eventId (warm head)", 100, post("count-abcdef"));
await measure("summary read", 100, (i) =>
  client.send("GET", `/incidents/${ids[i % ids.length]}`).then((a) => expectStatus(a, 200)),
);
client.close();
await stack.close();
