import { summarize } from "../../events/summarize.js";
import { fold } from "../../events/summary.js";
import { Projector } from "../../functions/projector/projector.js";
import { createTables } from "../../functions/store/create-tables.js";
import { EventStore } from "../../functions/store/event-store.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { startDynalite } from "../lib/dynamo.js";
import { sealIncident, storeHistory } from "../lib/history.js";

/**
 * Does one incident's view item stay under DynamoDB's 400 KB item limit as the incident grows?
 *   tsx bench/profile/view-limit.ts 1000 2000 3000
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const dynamo = await startDynalite();
const db = dynamo.client();
const tables = { events: "vl-events", claims: "vl-claims", views: "vl-views" };
await createTables(db, tables);
const projector = new Projector(new EventStore({ db, tables }), new ViewStore(db, tables.views));
for (const size of process.argv.slice(2).map(Number)) {
  const id = `view-limit-${size}`;
  const events = sealIncident(id, size);
  await storeHistory(db, tables.events, new Map([[id, events]]));
  const summaryKb = JSON.stringify(summarize(fold(id, events))).length / 1024;
  try {
    const result = await projector.project(id);
    process.stdout.write(
      `${size} events: summary ${summaryKb.toFixed(0)} KB, projected to version ${result.to}\n`,
    );
  } catch (error) {
    process.stdout.write(
      `${size} events: summary ${summaryKb.toFixed(0)} KB, projection FAILED: ${(error as Error).message}\n`,
    );
  }
}
await dynamo.close();
