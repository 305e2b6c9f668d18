import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { EMPTY_HEAD, sealEvents } from "../../events/stored-event.js";
import { commitToItem } from "../../functions/store/commit-item.js";
import { createTable, rawEventsTable, startDynalite } from "../lib/dynamo.js";
import { reportEnvelope } from "../lib/fixtures.js";
import { envelope } from "../lib/seed.js";
import { median } from "../lib/stats.js";

/**
 * CPU of one conditional put of the raw body against one of the archive's commit item for the
 * same report (sealing included), alternating rounds, store in this process:
 *   tsx bench/profile/item-cost.ts
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const dynamo = await startDynalite();
const db = dynamo.client();
await createTable(db, rawEventsTable("item-cost"));
const raw = reportEnvelope(1, "item-cost-event-0001");
const body = JSON.stringify(raw);
const parsed = envelope(raw);
const commit = (version: number) => {
  const head = { ...EMPTY_HEAD, version: version - 1 };
  const events = sealEvents(head, [parsed], {
    incidentId: "item-cost-incident",
    recordedBy: "bench-writer",
    now: new Date().toISOString(),
    newEventId: () => "unused",
  });
  return commitToItem({
    incidentId: "item-cost-incident",
    version,
    lastVersion: version,
    events,
    token: crypto.randomUUID(),
  });
};
const plain = (version: number) => ({
  incidentId: { S: "item-cost-incident" },
  version: { N: String(version) },
  body: { S: body },
});
const cpu = { body: [] as number[], commit: [] as number[] };
let version = 0;
for (let round = -1; round < 5; round++) {
  for (const kind of ["body", "commit"] as const) {
    const before = process.cpuUsage();
    for (let i = 0; i < 1500; i++) {
      version += 1;
      const Item = kind === "body" ? plain(version) : commit(version);
      await db.send(
        new PutItemCommand({
          TableName: "item-cost",
          Item,
          ConditionExpression: "attribute_not_exists(version)",
        }),
      );
    }
    const used = process.cpuUsage(before);
    if (round >= 0) cpu[kind].push((used.user + used.system) / 1500);
  }
}
const [b, c] = [median(cpu.body), median(cpu.commit)];
process.stdout.write(
  `put of the raw body (${body.length} B): ${b.toFixed(0)} µs CPU; put of the commit item (sealed, ${JSON.stringify(commit(1)).length} B as JSON): ${c.toFixed(0)} µs (+${(c - b).toFixed(0)} µs)\n`,
);
await dynamo.close();
