import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BroadcastChannel } from "node:worker_threads";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startLocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/logger.js";
import { openedEnvelope, reportEnvelope } from "../lib/fixtures.js";

// How many store calls one append costs on `npm start`, by thread and kind: the request
// thread's (the append and its reads) and the feed thread's (projector and log sequencer):
//   tsx bench/profile/count-npm-start.ts [appends] [--many] [--ids]
// By default one writer appends to one incident, 5 ms apart; `--many`: 16 writers over 50
// incidents, back to back; `--ids`: every event carries a client eventId (a claim each).
// The feed thread's client is counted by count-thread-sends.mjs, preloaded into every thread;
// without it, this script runs itself again with it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
if (!(globalThis as { countThreadSends?: boolean }).countThreadSends) {
  const preload = fileURLToPath(new URL("./count-thread-sends.mjs", import.meta.url));
  const again = spawnSync(
    process.execPath,
    [...process.execArgv, "--import", preload, ...process.argv.slice(1)],
    {
      stdio: "inherit",
    },
  );
  process.exit(again.status ?? 1);
}
const calls = { request: new Map<string, number>(), feed: new Map<string, number>() };
const count = (thread: Map<string, number>, name: string) => thread.set(name, (thread.get(name) ?? 0) + 1);
const original = DynamoDBClient.prototype.send;
DynamoDBClient.prototype.send = function (this: DynamoDBClient, command: unknown, ...rest: unknown[]) {
  count(calls.request, (command as object).constructor.name.replace(/Command$/, ""));
  // biome-ignore lint/suspicious/noExplicitAny: forwarding the SDK's overloads
  return (original as any).call(this, command, ...rest);
} as typeof original;
// The store thread makes no SDK calls: every worker thread's call is the feed thread's.
const workers = new BroadcastChannel("count-thread-sends");
workers.onmessage = (message) => count(calls.feed, (message as { data: string }).data);
const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  log: createLogger("error"),
  token: "t",
});
const n = Number(process.argv[2] ?? 200);
const many = process.argv.includes("--many");
const ids = process.argv.includes("--ids");
const INCIDENTS = many ? 50 : 1;
const post = (incident: number, body: unknown) =>
  fetch(`${server.url}/incidents/count-${incident}/events`, {
    method: "POST",
    headers: { authorization: "Bearer t", "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => {
    if (r.status >= 300) throw new Error(`${r.status} ${await r.text()}`);
  });
for (let k = 0; k < INCIDENTS; k++) await post(k, openedEnvelope());
await server.stream.idle();
await new Promise((r) => setTimeout(r, 1500));
calls.request.clear();
calls.feed.clear();
const append = (i: number) => post(i % INCIDENTS, reportEnvelope(i, ids ? `count-event-${i}` : undefined));
if (many) {
  let next = 1;
  const writer = async () => {
    for (let i = next++; i <= n; i = next++) await append(i);
  };
  await Promise.all(Array.from({ length: 16 }, writer));
} else {
  for (let i = 1; i <= n; i++) {
    await append(i);
    await new Promise((r) => setTimeout(r, 5));
  }
}
await server.stream.idle();
await new Promise((r) => setTimeout(r, 1500));
for (const [thread, counted] of Object.entries(calls)) {
  const total = [...counted.values()].reduce((a, b) => a + b, 0);
  const kinds = [...counted].map(([k, v]) => `${k} ${(v / n).toFixed(2)}`).join(", ");
  console.log(`${thread} thread, per append: ${(total / n).toFixed(2)} (${kinds})`);
}
workers.close();
await server.close();
