import { summarize } from "../../events/summarize.js";
import { foldWithStore } from "../../functions/history-fold.js";
import { createLedger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/logger.js";
import { createTables } from "../../functions/store/create-tables.js";
import { SNAPSHOT_EVERY } from "../../functions/store/view-store.js";
import { fixedBreadthHistory, ISSUE, longHistory, seedCommits } from "../../test/support/long-history.js";
import { startDynalite } from "../lib/dynamo.js";
import { median } from "../lib/stats.js";

/**
 * Where a past-version read (a snapshot + 5 events) spends its time on incidents of 10, 1,000
 * and 10,000 events (CPU ms per call): the snapshot, the events after it, the fold, the summary.
 *   npx tsx bench/profile/long-past.ts [issue|length]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const history = (id: string, n: number) =>
  process.argv[2] === "issue" ? longHistory(id, n, 11, ISSUE) : fixedBreadthHistory(id, n, 11);
const dynamo = await startDynalite();
const db = dynamo.client();
const tables = { events: "pp-events", claims: "pp-claims", views: "pp-views" };
await createTables(db, tables);
const ledger = createLedger({ db, tables, log: silentLogger });
/** CPU time per call (dynalite runs in this process), over 10 calls: steadier than wall time on a shared machine. */
const time = async (f: () => unknown) => {
  const t = process.cpuUsage();
  for (let i = 0; i < 10; i++) await f();
  const used = process.cpuUsage(t);
  return (used.user + used.system) / 1000 / 10;
};
for (const n of [10, 1_000, 10_000]) {
  const id = `pp-${n}`;
  await seedCommits(db, tables.events, history(id, n));
  await ledger.projector.project(id);
  const version = n <= SNAPSHOT_EVERY ? 5 : n / 2 + 5;
  const base = Math.floor(version / SNAPSHOT_EVERY) * SNAPSHOT_EVERY;
  const parts: Record<string, number[]> = { snapshot: [], events: [], fold: [], summary: [], whole: [] };
  for (let i = 0; i < 5; i++) {
    const snap = base > 0 ? await ledger.views.getSnapshot(id, base) : undefined;
    parts.snapshot?.push(await time(() => (base > 0 ? ledger.views.getSnapshot(id, base) : null)));
    const events = await ledger.events.eventsBetween(id, base, version);
    parts.events?.push(await time(() => ledger.events.eventsBetween(id, base, version)));
    let state = await foldWithStore(ledger.events, id, events, snap ?? undefined, undefined, ledger.views);
    parts.fold?.push(
      await time(async () => {
        state = await foldWithStore(ledger.events, id, events, snap ?? undefined, undefined, ledger.views);
      }),
    );
    parts.summary?.push(await time(() => JSON.stringify(summarize(state))));
    parts.whole?.push(await time(() => ledger.reader.summaryJson(id, { at: "version", version })));
  }
  const line = Object.entries(parts)
    .map(([k, v]) => `${k} ${median(v).toFixed(2)} ms`)
    .join(", ");
  process.stdout.write(`${n} events: ${line}\n`);
}
await dynamo.close();
process.exit(0);
