import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { startLocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/log.js";
import { openedEnvelope, reportEnvelope } from "../lib/fixtures.js";

// How many store calls one append costs on `npm start`'s request thread, by kind (the projector
// and the log sequencer run on the feed thread, whose SDK client this patch does not reach):
// tsx bench/profile/count-npm-start.ts [appends]
const calls = new Map<string, number>();
const original = DynamoDBClient.prototype.send;
DynamoDBClient.prototype.send = function (this: DynamoDBClient, command: unknown, ...rest: unknown[]) {
  const name = (command as object).constructor.name.replace(/Command$/, "");
  calls.set(name, (calls.get(name) ?? 0) + 1);
  // biome-ignore lint/suspicious/noExplicitAny: forwarding the SDK's overloads
  return (original as any).call(this, command, ...rest);
} as typeof original;
const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  log: createLogger({ level: "error" } as never),
  token: "t",
});
const n = Number(process.argv[2] ?? 200);
const post = (i: number) =>
  fetch(`${server.url}/incidents/count-1/events`, {
    method: "POST",
    headers: { authorization: "Bearer t", "content-type": "application/json" },
    body: JSON.stringify(i === 0 ? openedEnvelope() : reportEnvelope(i)),
  }).then(async (r) => {
    if (r.status >= 300) throw new Error(`${r.status} ${await r.text()}`);
  });
await post(0);
await server.stream.idle();
await new Promise((r) => setTimeout(r, 1500));
calls.clear();
for (let i = 1; i <= n; i++) {
  await post(i);
  await new Promise((r) => setTimeout(r, 5));
}
await server.stream.idle();
await new Promise((r) => setTimeout(r, 1500));
console.log([...calls].map(([k, v]) => `${k} ${(v / n).toFixed(2)}`).join(", "));
await server.close();
