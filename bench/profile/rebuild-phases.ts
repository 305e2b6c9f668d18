import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { fold } from "../../events/summary.js";
import { Projector } from "../../functions/projector/projector.js";
import { createTables } from "../../functions/store/create-tables.js";
import { EventStore } from "../../functions/store/event-store.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { startDynalite } from "../lib/dynamo.js";
import { makeHistory, storeHistory } from "../lib/history.js";

/**
 * Where a rebuild's time goes, one incident at a time (so wall times add up):
 *   tsx bench/profile/rebuild-phases.ts [incidents] [eventsPerIncident]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const incidents = Number(process.argv[2] ?? 100);
const per = Number(process.argv[3] ?? 100);
const dynamo = await startDynalite();
const db = dynamo.client();
const tables = { events: "ph-events", claims: "ph-claims", views: "ph-views" };
await createTables(db, tables);
const history = makeHistory(incidents, incidents * per, "phase");
await storeHistory(db, tables.events, history);
const events = new EventStore({ db, tables });
const views = new ViewStore(db, tables.views);
const spent = new Map<string, number>();
const clock = async <T>(label: string, task: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await task();
  } finally {
    spent.set(label, (spent.get(label) ?? 0) + performance.now() - started);
  }
};
const getState = views.getState.bind(views);
views.getState = (id) => clock("views.getState (consistent GetItem)", () => getState(id));
const save = views.save.bind(views);
views.save = (state) => clock("views.save (summarize, gzip, conditional PutItem)", () => save(state));
const projector = new Projector(events, views);
const started = performance.now();
for (const id of history.keys()) await projector.project(id);
const total = performance.now() - started;
for (const id of history.keys()) {
  await clock("raw Query of the same items (baseline)", async () => {
    let start: Record<string, never> | undefined;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: tables.events,
          KeyConditionExpression: "incidentId = :i",
          ExpressionAttributeValues: { ":i": { S: id } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      start = out.LastEvaluatedKey as typeof start;
    } while (start);
  });
  await clock("events.commits (Query + JSON.parse of each event)", async () => {
    for await (const _ of events.commits(id, 0)) {
      /* read */
    }
  });
  const list = history.get(id) ?? [];
  await clock("fold (in memory)", async () => fold(id, list));
}
process.stdout.write(`rebuild of ${incidents} × ${per} events: ${total.toFixed(0)} ms in all\n`);
for (const [label, ms] of spent) process.stdout.write(`${ms.toFixed(0).padStart(7)} ms  ${label}\n`);
await dynamo.close();
