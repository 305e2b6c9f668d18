import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import dynalite from "dynalite";
import { bearerToken } from "../http/auth.js";
import { openApiDocument } from "../http/openapi.js";
import { pageRoutes } from "../http/routes/site.js";
import { createLedger, type Ledger } from "../ledger.js";
import { createLogWriter, LocalLogFeed, type LogWriter } from "../log/log-service.js";
import { DEFAULT_LOG_ORIGIN, type LogSigner, localSigner } from "../log/signer.js";
import type { WitnessConfig } from "../log/witness-client.js";
import type { Logger } from "../log.js";
import { createStreamHandler } from "../projector/stream-handler.js";
import { repairViews } from "../projector/view-repair.js";
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
  /** The transparency log's origin (and key name); default localhost/incident-ledger. */
  logOrigin?: string;
  /** The log's private key text (LEDGER_LOG_KEY); else kept in dataDir, made at first start. */
  logKey?: string;
  /** Witnesses each new checkpoint is sent to (LEDGER_WITNESSES). */
  witnesses?: readonly WitnessConfig[];
  /** false: no sequencer runs (a baseline for measuring what the log costs). Default true. */
  sequenceLog?: boolean;
}

export interface LocalServer {
  url: string;
  dynamoEndpoint: string;
  token: string;
  tables: TableNames;
  ledger: Ledger;
  stream: LocalStream;
  caughtUp: number;
  /** The transparency log's signer (its verifier key is printed in the banner) and writer. */
  logSigner: LogSigner;
  logWriter: LogWriter;
  logFeed: LocalLogFeed;
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
  const named = options.tables ?? tableNamesFromEnv(process.env);
  const tables = { ...named, log: named.log ?? "incident-ledger-log" };
  const created = await createTables(db, tables);

  let stream: LocalStream | undefined;
  let logFeed: LocalLogFeed | undefined;
  const logSigner = localSigner({
    origin: options.logOrigin ?? DEFAULT_LOG_ORIGIN,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.logKey ? { keyText: options.logKey } : {}),
  });
  const ledger = createLedger({
    db,
    tables,
    log: options.log,
    onCommit: (item) => {
      stream?.publish(item);
      // The same commit feed as the projector's: the log sequences it within milliseconds.
      logFeed?.notify(item.incidentId?.S ?? "");
    },
    logVerifierKey: async () => logSigner.vkey,
    // Locally the projector runs in this process: reads wait for it, so a write is read back at once.
    settle: {
      incident: (id) => stream?.settled(id) ?? Promise.resolve(),
      all: () => stream?.idle() ?? Promise.resolve(),
    },
  });
  stream = new LocalStream(createStreamHandler(ledger.projector, options.log), options.log, tables.events);

  const caughtUp = await catchUp(ledger, options.log);
  // The log catches up on everything stored but not yet sequenced (after a crash), and signs.
  const logWriter = createLogWriter({
    store: ledger.log,
    events: ledger.events,
    signer: logSigner,
    log: options.log,
    ...(options.witnesses ? { witnesses: options.witnesses } : {}),
  });
  const feed = new LocalLogFeed(logWriter, options.log);
  if (options.sequenceLog !== false) {
    await logWriter.pass();
    logFeed = feed;
  }
  const token = options.token ?? randomBytes(24).toString("base64url");
  // One process serves everything here: the API and the pages, the document built once at start.
  const openApi = openApiDocument();
  const app = ledger.app(bearerToken(token, options.writer ?? "local-writer"), {
    openApi,
    pages: pageRoutes(ledger.pageDeps(openApi)),
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
    logSigner,
    logWriter,
    logFeed: feed,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stream?.idle();
      await logFeed?.close();
      db.destroy();
      await new Promise<void>((resolve) => store.close(() => resolve()));
    },
  };
}

/** Views lag after a crash (the in-process feed died with the process): the repair sweep folds what they missed. */
async function catchUp(ledger: Ledger, log: Logger): Promise<number> {
  // One incident's view must not keep the archive from starting; its reads fold from events.
  const report = await repairViews({ ...ledger, log });
  return report.built + report.caughtUp;
}
