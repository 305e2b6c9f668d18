import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import dynalite from "dynalite";
import { bearerToken } from "../http/auth.js";
import { openApiDocument } from "../http/openapi.js";
import { pageRoutes } from "../http/pages/site.js";
import { createLedger, type Ledger } from "../ledger.js";
import type { Logger } from "../log.js";
import { createStreamHandler } from "../projector/stream-handler.js";
import { createTables } from "../store/create-tables.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { type TableNames, tableNamesFromEnv } from "../store/table-design.js";
import { LocalStream } from "./local-stream.js";

export interface LocalOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Where dynalite keeps its data; undefined keeps it in memory (tests). */
  dataDir?: string;
  dynamoPort: number;
  host?: string;
  token?: string;
  writer?: string;
  tables?: TableNames;
  log: Logger;
}

export interface LocalServer {
  url: string;
  dynamoEndpoint: string;
  token: string;
  tables: TableNames;
  ledger: Ledger;
  stream: LocalStream;
  caughtUp: number;
  close(): Promise<void>;
}

/**
 * The whole archive in one process: dynalite in-process (a forked one outlived its parent in
 * trials), the tables, the Hono app, and the projector fed by a local stand-in for streams.
 */
export async function startLocalServer(options: LocalOptions): Promise<LocalServer> {
  const host = options.host ?? "127.0.0.1";
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const store = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir ? { path: options.dataDir } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    store.once("error", reject);
    store.listen(options.dynamoPort, host, () => resolve());
  });
  const dynamoEndpoint = `http://${host}:${(store.address() as AddressInfo).port}`;
  const db = createDynamoClient(dynamoEndpoint);
  const tables = options.tables ?? tableNamesFromEnv(process.env);
  const created = await createTables(db, tables);

  let stream: LocalStream | undefined;
  const ledger = createLedger({
    db,
    tables,
    log: options.log,
    onCommit: (item) => stream?.publish(item),
    // Locally the projector runs in this process: reads wait for it, so a write is read back at once.
    settle: {
      incident: (id) => stream?.settled(id) ?? Promise.resolve(),
      all: () => stream?.idle() ?? Promise.resolve(),
    },
  });
  stream = new LocalStream(createStreamHandler(ledger.projector, options.log), options.log, tables.events);

  const caughtUp = await catchUp(ledger, options.log);
  const token = options.token ?? randomBytes(24).toString("base64url");
  // One process serves everything here: the API and the pages, the document built once at start.
  const openApi = openApiDocument();
  const app = ledger.app(bearerToken(token, options.writer ?? "local-writer"), {
    openApi,
    pages: pageRoutes({ reader: ledger.reader, events: ledger.events, openApi }),
  });
  const server = serve({ fetch: app.fetch, port: options.port, hostname: host });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${(server.address() as AddressInfo).port}`;
  options.log.info("started", { url, dynamoEndpoint, tables, createdTables: created, caughtUp });

  return {
    url,
    dynamoEndpoint,
    token,
    tables,
    ledger,
    stream,
    caughtUp,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stream?.idle();
      db.destroy();
      await new Promise<void>((resolve) => store.close(() => resolve()));
    },
  };
}

/** Views lag after a crash (the in-process feed died with the process): fold what they missed. */
async function catchUp(ledger: Ledger, log: Logger): Promise<number> {
  const heads = await ledger.events.incidentVersions();
  const viewVersions = new Map<string, number>();
  for await (const [id, version] of ledger.views.versions()) viewVersions.set(id, version);
  let caughtUp = 0;
  for (const [incidentId, version] of heads) {
    if ((viewVersions.get(incidentId) ?? 0) >= version) continue;
    try {
      const result = await ledger.projector.project(incidentId);
      log.info("caught up a lagging view", { ...result });
      caughtUp += 1;
    } catch (error) {
      // One incident's view must not keep the archive from starting; its reads fold from events.
      log.error("could not catch up a view", { incidentId, error: String(error) });
    }
  }
  return caughtUp;
}
