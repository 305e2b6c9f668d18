import { startLocalServer } from "../functions/local/server.js";
import { TimestampAuthority } from "../functions/log/timestamp-authority.js";
import { timestampsOf } from "../functions/log/timestamp-store.js";
import { silentLogger } from "../functions/logger.js";
import { casualties, opened, post, TOKEN } from "../test/support/archive.js";
import { startLocalTsa } from "../test/support/local-tsa.js";
import { median, percentile } from "./lib/stats.js";

/**
 * Time from a signed checkpoint to its stored RFC 3161 token (issue 21, "Measure"), with the
 * local test TSA (`openssl ts -reply` behind HTTP, one process per request) and `npm start`'s
 * server in-process. The one-a-minute rule is lifted (minIntervalMs 0) so that each append's
 * checkpoint gets its own token: what is measured is the path (offer → request → openssl →
 * check → store), not the rule's wait.
 * Run: npx tsx bench/trusted-time.ts [appends, default 20]
 */
const appends = Number(process.argv[2] ?? 20);
const tsa = await startLocalTsa({ name: "Bench" });
const archive = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  token: TOKEN,
  log: silentLogger,
  tsa: { url: tsa.url, minIntervalMs: 0 },
});
const store = archive.ledger.logStore;
const tokens = timestampsOf(store);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const incident = "bench-trusted-time-2024";
if ((await post(archive.url, incident, opened())).status !== 201) throw new Error("open failed");
await archive.sequencing.idle();
await sleep(500);

const fromCheckpoint: number[] = [];
const fromAppend: number[] = [];
for (let i = 0; i < appends; i++) {
  const before = (await store.latestCheckpoint())?.size ?? 0;
  const appended = performance.now();
  const answer = await post(archive.url, incident, casualties({ killed: { value: i, qualifier: "exact" } }));
  if (answer.status !== 201) throw new Error(`append: ${answer.status}`);
  let signedAt = 0;
  for (;;) {
    const size = (await store.latestCheckpoint())?.size ?? 0;
    if (size > before) {
      signedAt ||= performance.now();
      const latest = await tokens.latest();
      if (latest && latest.treeSize >= size) break;
    }
    if (performance.now() - appended > 30_000) throw new Error("no token within 30 s");
    await sleep(2);
  }
  const storedAt = performance.now();
  fromCheckpoint.push(storedAt - signedAt);
  fromAppend.push(storedAt - appended);
  // Apart enough that the checkpoint of this append is not folded into the next.
  await sleep(300);
}

// The TSA alone (request, openssl, check), for comparison.
const direct: number[] = [];
const authority = new TimestampAuthority(tsa.url);
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  await authority.stamp(`bench\n${i}\n${"A".repeat(43)}=\n`);
  direct.push(performance.now() - started);
}

const line = (name: string, xs: number[]) =>
  `${name}: median ${median(xs).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;
console.log(`trusted time, ${appends} appends, local openssl TSA`);
console.log(line("checkpoint visible → token stored", fromCheckpoint));
console.log(line("append 201 → token stored", fromAppend));
console.log(line("the TSA alone (one stamp() call)", direct));
await archive.close();
await tsa.close();
