import { gzipSync } from "node:zlib";
import { summarize } from "../../events/summarize.js";
import { createLedger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/log.js";
import { createTables } from "../../functions/store/create-tables.js";
import { ISSUE, longHistory, seedCommits } from "../../test/support/long-history.js";
import { startDynalite } from "../lib/dynamo.js";
import { median } from "../lib/stats.js";

/**
 * Where a cold projection of one commit spends its time on incidents of 10, 1,000 and 10,000
 * events (the issue's mix): reading the view's state, the fold, making the item, the put.
 *   tsx bench/profile/long-projection.ts
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const dynamo = await startDynalite();
const db = dynamo.client();
const tables = { events: "lp-events", claims: "lp-claims", views: "lp-views" };
await createTables(db, tables);
const ledger = createLedger({ db, tables, log: silentLogger });
const time = async (f: () => unknown) => {
  const t = performance.now();
  await f();
  return performance.now() - t;
};
for (const n of [10, 1_000, 10_000]) {
  const id = `lp-${n}`;
  await seedCommits(db, tables.events, longHistory(id, n, 11, ISSUE));
  await ledger.projector.project(id);
  const parts: Record<string, number[]> = { getState: [], summarize: [], stringifyGzip: [], save: [] };
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
