import type { AddressInfo } from "node:net";
import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createTable, rawEventsTable, startDynalite } from "../lib/dynamo.js";

/**
 * The baseline of the user-facing rows, run as its own process like `npm start`: Hono on
 * @hono/node-server with an in-process dynalite. POST does one conditional PutItem of the body,
 * GET one GetItem of a 3 KB item. Same paths as the archive, so one load generator drives both.
 * Prints `listening <url>` on stdout when ready.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const TABLE = "bare-events";
const READ_ITEM_BYTES = 3 * 1024;

const dynamo = await startDynalite();
const db = dynamo.client();
await createTable(db, rawEventsTable(TABLE));
// The read item sits under version 0 of an incident id; PUT /incidents/{id} writes it.
const summary = JSON.stringify({ incidentId: "x", text: "s".repeat(READ_ITEM_BYTES) });

const versions = new Map<string, number>();
const app = new Hono();
app.post("/incidents/:incidentId/events", async (c) => {
  const incidentId = c.req.param("incidentId");
  const body = await c.req.text();
  const version = (versions.get(incidentId) ?? 0) + 1;
  versions.set(incidentId, version);
  await db.send(
    new PutItemCommand({
      TableName: TABLE,
      Item: { incidentId: { S: incidentId }, version: { N: String(version) }, body: { S: body } },
      ConditionExpression: "attribute_not_exists(version)",
    }),
  );
  return c.json({ incidentId, version }, 201);
});
app.put("/incidents/:incidentId", async (c) => {
  const incidentId = c.req.param("incidentId");
  await db.send(
    new PutItemCommand({
      TableName: TABLE,
      Item: { incidentId: { S: incidentId }, version: { N: "0" }, body: { S: summary } },
    }),
  );
  return c.body(null, 204);
});
app.get("/incidents/:incidentId", async (c) => {
  const out = await db.send(
    new GetItemCommand({
      TableName: TABLE,
      Key: { incidentId: { S: c.req.param("incidentId") }, version: { N: "0" } },
    }),
  );
  const text = out.Item?.body?.S;
  return text ? c.body(text, 200, { "content-type": "application/json" }) : c.notFound();
});

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: "127.0.0.1" });
server.once("listening", () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    server.close();
    await dynamo.close();
    process.exit(0);
  });
}
