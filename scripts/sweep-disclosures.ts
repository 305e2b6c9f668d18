import { DisclosureStore } from "../functions/people/disclosure-store.js";
import { sweepOrphanDisclosures } from "../functions/people/orphan-sweep.js";
import { createDynamoClient } from "../functions/store/dynamo-client.js";
import { EventStore } from "../functions/store/event-store.js";
import { peopleTables, tableNamesFromEnv } from "../functions/store/table-design.js";

/**
 * `npm run sweep:disclosures`: removes orphan disclosures (written before an append that then
 * failed, and past the writer deadline), with the same code the view-repair Lambda runs in AWS
 * after each repair. Like `npm run rebuild`, it talks to the running local server's dynalite
 * (`DYNAMO_PORT`, 8000) or to DYNAMODB_ENDPOINT. Prints a JSON report on stdout.
 */
const env = process.env;
env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const endpoint = env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${env.DYNAMO_PORT ?? 8000}`;
const db = createDynamoClient(endpoint);
const tables = tableNamesFromEnv(env);
const events = new EventStore({ db, tables });
try {
  const report = await sweepOrphanDisclosures({
    disclosures: new DisclosureStore(db, peopleTables(tables).disclosures),
    findEvent: (incidentId, eventId) => events.findEvent(incidentId, eventId),
  });
  process.stdout.write(`${JSON.stringify({ endpoint, ...report })}\n`);
} catch (error) {
  process.stderr.write(
    `sweep failed against ${endpoint}: ${String(error)}\n(is \`npm start\` running? set DYNAMO_PORT or DYNAMODB_ENDPOINT)\n`,
  );
  process.exitCode = 2;
} finally {
  db.destroy();
}
