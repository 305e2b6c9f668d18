import { gzipSync } from "node:zlib";
import { summarize } from "../../events/summarize.js";
import { createLedger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/logger.js";
import { Projector } from "../../functions/projector/projector.js";
import { createTables } from "../../functions/store/create-tables.js";
import { fixedBreadthHistory, ISSUE, longHistory, seedCommits } from "../../test/support/long-history.js";
import { startDynalite } from "../lib/dynamo.js";
import { median } from "../lib/stats.js";

/**
 * Where a cold projection of one commit spends its time on incidents of 10, 1,000 and 10,000
 * events (CPU ms per call, dynalite in this process): reading the view's state, the summary,
 * packing the state, the put; then a whole cold projection of one appended statement. On a
 * history of the same breadth at every length (default) or the issue's siege (`issue`).
 *   npx tsx bench/profile/long-projection.ts [length|issue]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const dynamo = await startDynalite();
const db = dynamo.client();
const tables = { events: "lp-events", claims: "lp-claims", views: "lp-views" };
await createTables(db, tables);
const ledger = createLedger({ db, tables, log: silentLogger });
const time = async (f: () => unknown) => {
  const t = process.cpuUsage();
  await f();
  const used = process.cpuUsage(t);
  return (used.user + used.system) / 1000;
};
const history = (id: string, n: number) =>
  process.argv[2] === "issue" ? longHistory(id, n, 11, ISSUE) : fixedBreadthHistory(id, n, 11);
for (const n of [10, 1_000, 10_000]) {
  const id = `lp-${n}`;
  await seedCommits(db, tables.events, history(id, n));
  await ledger.projector.project(id);
  const cold: number[] = [];
  for (let i = 0; i < 20; i++) {
    const statement = { quote: `profile ${i}`, stance: "neutral" };
    await ledger.events.append({
      incidentId: id,
      envelopes: [
        { type: "StatementMade", source: { publisher: "P" }, attributedTo: { name: "A" }, data: statement },
      ] as never,
      recordedBy: "profile",
      batched: false,
    });
    const projector = new Projector(ledger.events, ledger.views);
    cold.push(await time(() => projector.project(id)));
  }
  const parts: Record<string, number[]> = { getState: [], summarize: [], stringifyGzip: [], save: [], cold };
  let sizes = "";
  for (let i = 0; i < 20; i++) {
    let state = await ledger.views.getState(id);
    parts.getState?.push(await time(async () => (state = await ledger.views.getState(id))));
    if (!state) throw new Error("no state");
    const s = state;
    parts.summarize?.push(await time(() => JSON.stringify(summarize(s))));
    parts.stringifyGzip?.push(await time(() => gzipSync(JSON.stringify(s), { level: 1 })));
    const next = { ...s, version: s.version + 1 + i };
    parts.save?.push(await time(() => ledger.views.save(next)));
    sizes = `summary ${(JSON.stringify(summarize(s)).length / 1024).toFixed(1)} KB, state ${(JSON.stringify(s).length / 1024).toFixed(1)} KB (gzip ${(gzipSync(JSON.stringify(s), { level: 1 }).length / 1024).toFixed(1)} KB)`;
  }
  const line = Object.entries(parts)
    .map(([k, v]) => `${k} ${median(v).toFixed(2)} ms`)
    .join(", ");
  process.stdout.write(`${n} events: ${line}; ${sizes}\n`);
}
await dynamo.close();
process.exit(0);
