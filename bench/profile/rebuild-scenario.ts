import { parseArgs } from "node:util";
import { createTables } from "../../functions/store/create-tables.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { startDynalite } from "../lib/dynamo.js";
import { makeHistory, storeHistory } from "../lib/history.js";
import { rawQueryAll, rebuildAll } from "../suites/rebuild.js";

/**
 * One side of the rebuild row alone, repeated, for `node --cpu-prof`:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof/rebuild --import tsx bench/profile/rebuild-scenario.ts --side rebuild
 * The seeding is in the profile too; compare the two sides with `analyze.ts --diff`.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const { values } = parseArgs({
  options: {
    side: { type: "string", default: "rebuild" },
    events: { type: "string", default: "20000" },
    incidents: { type: "string", default: "200" },
    rounds: { type: "string", default: "3" },
  },
});
const dynamo = await startDynalite();
const db = dynamo.client();
const tables: TableNames = { events: "p-events", claims: "p-claims", views: "p-views" };
await createTables(db, tables);
const history = makeHistory(Number(values.incidents), Number(values.events));
const stored = await storeHistory(db, tables.events, history);
const ids = [...history.keys()];
for (let round = 0; round < Number(values.rounds); round++) {
  const started = performance.now();
  if (values.side === "raw") await rawQueryAll(db, tables.events, ids, stored);
  else await rebuildAll(db, tables, ids, round);
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`${values.side}: ${Math.round(stored / seconds)} events/s\n`);
}
await dynamo.close();
