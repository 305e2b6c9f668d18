import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";
import { fold } from "../../events/summary.js";
import { tableDefinitions } from "../../functions/store/create-tables.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { createTable, startDynalite } from "../lib/dynamo.js";
import { makeHistory } from "../lib/history.js";

/**
 * What the listing index costs each view write: the same states saved into the views table as
 * defined (GSI projecting the whole summary) and into one without the index:
 *   tsx bench/profile/view-save.ts [incidents] [eventsPerIncident]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const incidents = Number(process.argv[2] ?? 200);
const per = Number(process.argv[3] ?? 100);
const dynamo = await startDynalite();
const db = dynamo.client();
const names = { events: "vs-events", claims: "vs-claims", views: "vs-views" };
const withIndex = tableDefinitions(names).find((d) => d.TableName === names.views) as CreateTableCommandInput;
const { GlobalSecondaryIndexes: _gsi, ...bare } = withIndex;
await createTable(db, withIndex);
await createTable(db, {
  ...bare,
  TableName: "vs-views-no-index",
  AttributeDefinitions: [{ AttributeName: "incidentId", AttributeType: "S" }],
});
const states = [...makeHistory(incidents, incidents * per, "vs")].map(([id, events]) => fold(id, events));
const stores = {
  "with the listing index": new ViewStore(db, names.views),
  "without it": new ViewStore(db, "vs-views-no-index"),
};
for (let round = 0; round < 2; round++) {
  for (const [label, store] of Object.entries(stores)) {
    const started = performance.now();
    for (const state of states) await store.save({ ...state, version: state.version + round });
    process.stdout.write(
      `${label}: ${((performance.now() - started) / states.length).toFixed(2)} ms per save\n`,
    );
  }
}
await dynamo.close();
