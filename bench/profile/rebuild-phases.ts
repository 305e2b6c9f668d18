import { gzipSync } from "node:zlib";
import { summarize } from "../../events/summarize.js";
import type { IncidentState } from "../../events/summary.js";
import { ViewBatches } from "../../functions/projector/view-batches.js";
import { scanAndFold } from "../../functions/projector/view-rebuild.js";
import { itemToCommit } from "../../functions/store/commit-item.js";
import { createTables } from "../../functions/store/create-tables.js";
import { EventStore } from "../../functions/store/event-store.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { startDynalite } from "../lib/dynamo.js";
import { makeHistory, storeHistory } from "../lib/history.js";
import { eachLimited } from "../lib/seed.js";
import { median } from "../lib/stats.js";
import { rawQueryAll, rawScanAll, rebuildAll } from "../suites/rebuild.js";

/**
 * Where a rebuild's time goes: the rebuild path cut after each of its phases, every cut timed
 * in the same rounds as the raw paginated Query of the same items (alternating), and shown as
 * a share of it, so each phase's cost is the step from the line above:
 *   tsx bench/profile/rebuild-phases.ts [incidents] [eventsPerIncident] [rounds]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const incidents = Number(process.argv[2] ?? 200);
const per = Number(process.argv[3] ?? 100);
const rounds = Number(process.argv[4] ?? 5);
const SEGMENTS = 4;
const dynamo = await startDynalite();
const db = dynamo.client();
const tables: TableNames = { events: "ph-events", claims: "ph-claims", views: "ph-views" };
await createTables(db, tables);
const history = makeHistory(incidents, incidents * per, "phase");
const stored = await storeHistory(db, tables.events, history);
const ids = [...history.keys()];
const events = new EventStore({ db, tables });

/** A view store that writes nothing: `pack` says whether it still builds the items. */
class NoWrites extends ViewStore {
  constructor(private readonly pack: boolean) {
    super(db, "unused");
  }
  override async saveNew(states: readonly IncidentState[]): Promise<void> {
    if (!this.pack) return;
    for (const state of states) {
      JSON.stringify(summarize(state));
      gzipSync(JSON.stringify(state), { level: 1 });
    }
  }
  // Snapshots come packed (the fold packs them as it goes): nothing left to do but write them.
  override async saveSnapshots(): Promise<void> {}
}
const foldOnly = (pack: boolean) => async () => {
  const batches = new ViewBatches(new NoWrites(pack), { written: () => {}, failed: () => {} });
  await scanAndFold(events, batches, SEGMENTS);
  await batches.close();
};

const cuts: [string, (round: number) => Promise<unknown>][] = [
  ["raw paginated Query, 8 incidents at once (baseline)", () => rawQueryAll(db, tables.events, ids, stored)],
  ["raw Scan, 4 segments", () => rawScanAll(db, tables.events, stored)],
  [
    "+ itemToCommit (JSON.parse of each event)",
    () =>
      eachLimited([...Array(SEGMENTS).keys()], SEGMENTS, async (segment) => {
        for await (const page of events.scanCommitPages(segment, SEGMENTS))
          for (const item of page) itemToCommit(item);
      }),
  ],
  ["+ fold, snapshots packed as they are taken", foldOnly(false)],
  ["+ summarize, JSON and gzip of views", foldOnly(true)],
  ["+ the batched writes (= the whole rebuild)", (round) => rebuildAll(db, tables, ids, round)],
];
const times = cuts.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  for (const [i, [, task]] of cuts.entries()) {
    const started = performance.now();
    await task(round);
    times[i]?.push(performance.now() - started);
  }
}
const base = median(times[0] ?? []);
process.stdout.write(
  `rebuild of ${incidents} incidents × ${per} events, ${rounds} rounds (medians; share of the raw Query):\n`,
);
for (const [i, [label]] of cuts.entries()) {
  const ms = median(times[i] ?? []);
  process.stdout.write(`${ms.toFixed(0).padStart(7)} ms  ${(ms / base).toFixed(2)}  ${label}\n`);
}
await dynamo.close();
