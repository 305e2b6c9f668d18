import { ViewBatches } from "../../functions/projector/view-batches.js";
import { FoldThread } from "../../functions/projector/view-fold-thread.js";
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

/** A view store that writes nothing (views and snapshots come packed: the fold packs them). */
class NoWrites extends ViewStore {
  constructor() {
    super(db, "unused");
  }
  override async saveNew(): Promise<void> {}
  override async saveSnapshots(): Promise<void> {}
}
const foldOnly = (thread: boolean) => async () => {
  const batches = new ViewBatches(new NoWrites(), { written: () => {}, failed: () => {} });
  const folder = thread ? await FoldThread.start(events, batches, SEGMENTS) : null;
  if (thread && !folder) throw new Error("the fold thread did not start");
  try {
    await scanAndFold(events, batches, SEGMENTS, folder ?? undefined);
  } finally {
    await folder?.close();
  }
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
  ["+ fold, summarize, JSON and gzip of views and snapshots, in this thread", foldOnly(false)],
  [
    "+ the batched writes (= the whole rebuild, folding in this thread)",
    (round) => rebuildAll(db, tables, ids, round, false),
  ],
  ["  fold, summarize, pack on the fold thread, no writes", foldOnly(true)],
  [
    "  the whole rebuild, folding on the fold thread (npm run rebuild)",
    (round) => rebuildAll(db, tables, ids, round + rounds),
  ],
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
