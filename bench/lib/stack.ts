import type { AddressInfo } from "node:net";
import { type DynamoDBClient, GetItemCommand, PutItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { bearerToken } from "../../functions/http/auth.js";
import { pageRoutes } from "../../functions/http/routes/site.js";
import { siteDocuments } from "../../functions/http/site-documents.js";
import { createLedger, type Ledger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/logger.js";
import { createTables } from "../../functions/store/create-tables.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { createTable, type Dynalite, rawEventsTable, startDynalite } from "./dynamo.js";

export const TOKEN = "bench-token-0123456789abcdef";
export const AUTH = { authorization: `Bearer ${TOKEN}` };
const RAW_TABLE = "bench-raw-puts";

export interface Stack {
  /** The archive's API as the API Lambda wires it: no projector in the request's process. */
  archiveUrl: string;
  /** The bare Hono routes on the same @hono/node-server stack: the baseline. */
  rawUrl: string;
  ledger: Ledger;
  tables: TableNames;
  dynamo: Dynalite;
  db: DynamoDBClient;
  close(): Promise<void>;
}

/**
 * One dynalite, the archive's tables, and two HTTP servers in this process: the archive's app
 * and a bare app doing one raw DynamoDB call per request. Same server stack, same store, same
 * SDK client settings, so the ratio between them is the archive's own cost.
 */
export async function startStack(): Promise<Stack> {
  const dynamo = await startDynalite();
  const db = dynamo.client();
  const tables: TableNames = {
    events: "bench-events",
    claims: "bench-claims",
    views: "bench-views",
    log: "bench-log",
  };
  await createTables(db, tables);
  await createTable(db, rawEventsTable(RAW_TABLE));
  const ledger = createLedger({ db, tables, log: silentLogger });
  // The API with the pages beside it, as `npm start` serves them (the long-incident suite reads /view).
  const documents = siteDocuments();
  const archive = await listen(
    ledger.app(bearerToken(TOKEN, "bench-writer"), {
      openApi: documents.openApi,
      pages: pageRoutes(ledger.pageDeps(documents)),
    }),
  );
  const raw = await listen(bareApp(dynamo.client(), tables));
  return {
    archiveUrl: archive.url,
    rawUrl: raw.url,
    ledger,
    tables,
    dynamo,
    db,
    async close() {
      await Promise.all([archive.close(), raw.close()]);
      await dynamo.close();
    },
  };
}

/** The floor routes: read the body, make one DynamoDB call, answer. Nothing else. */
function bareApp(db: DynamoDBClient, tables: TableNames): Hono {
  const app = new Hono();
  const versions = new Map<string, number>();
  app.post("/raw/:incidentId/events", async (c) => {
    const incidentId = c.req.param("incidentId");
    const body = await c.req.text();
    const version = (versions.get(incidentId) ?? 0) + 1;
    versions.set(incidentId, version);
    await db.send(
      new PutItemCommand({
        TableName: RAW_TABLE,
        Item: { incidentId: { S: incidentId }, version: { N: String(version) }, body: { S: body } },
        ConditionExpression: "attribute_not_exists(version)",
      }),
    );
    return c.json({ incidentId, version }, 201);
  });
  app.get("/raw/:incidentId", async (c) => {
    const out = await db.send(
      new GetItemCommand({
        TableName: tables.views,
        Key: { incidentId: { S: c.req.param("incidentId") } },
        ProjectionExpression: "summary",
      }),
    );
    const text = out.Item?.summary?.S;
    return text ? c.body(text, 200, { "content-type": "application/json" }) : c.notFound();
  });
  // The floor of a read that folds the stream: every commit item of the incident, paginated.
  app.get("/raw/:incidentId/items", async (c) => {
    let count = 0;
    let start: Record<string, never> | undefined;
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: tables.events,
          KeyConditionExpression: "incidentId = :i",
          ExpressionAttributeValues: { ":i": { S: c.req.param("incidentId") } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      count += out.Items?.length ?? 0;
      start = out.LastEvaluatedKey as typeof start;
    } while (start);
    return c.json({ count });
  });
  return app;
}

export async function listen(app: Hono): Promise<{ url: string; close(): Promise<void> }> {
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  // The client's keep-alive sockets idle while the other side of a comparison runs, which on a
  // busy machine outlasts Node's 5 s default: the server closing one just as the client reuses
  // it ends the whole run with ECONNRESET.
  if ("keepAliveTimeout" in server) server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        if ("closeAllConnections" in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
