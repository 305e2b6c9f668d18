import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type LocalUser, ROLES, tokenUsers } from "../http/auth.js";
import { localDesk } from "../http/desk/local-desk.js";
import { openApiDocument } from "../http/openapi.js";
import { pageRoutes } from "../http/routes/site.js";
import { createLedger, type Ledger } from "../ledger.js";
import type { LogWriter } from "../log/log-service.js";
import { DEFAULT_LOG_ORIGIN, formatPrivateKey, type LogSigner, localSigner } from "../log/signer.js";
import type { WitnessConfig } from "../log/witness-client.js";
import type { Level, Logger } from "../log.js";
import type { Item } from "../store/commit-item.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { type TableNames, tableNamesFromEnv } from "../store/table-design.js";
import { DynaliteThread } from "./dynalite-thread.js";
import { FeedThread } from "./feed-thread.js";
import { ViewCache } from "./view-cache.js";

export interface LocalOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Where dynalite keeps its data; undefined keeps it in memory (tests). */
  dataDir?: string;
  dynamoPort: number;
  host?: string;
  token?: string;
  /** The name `token`'s writes are recorded by (it holds every role). */
  writer?: string;
  /** More users, each with its own token and roles (LEDGER_USERS). */
  users?: readonly LocalUser[];
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
  /** The desk's session key (LEDGER_SESSION_KEY); else kept in dataDir, or new per run in memory. */
  sessionKey?: string;
  /** The store or the feed thread died unasked (npm start exits non-zero); default: log it. */
  onThreadDeath?: (error: Error) => void;
}

/** The local commit feed, across the thread boundary: what tests and tools wait on. */
export interface LocalStreamHandle {
  /** Feeds a commit stored by another client to the projector and the log. */
  publish(item: Item): void;
  /** Resolves once every commit of this incident fed so far is projected. */
  settled(incidentId: string): Promise<void>;
  /** Resolves once every commit fed so far is projected (or parked). */
  idle(): Promise<void>;
}

/** One sequencer pass in the feed thread (all incidents: undefined), then a checkpoint. */
export interface LocalLogWriter {
  pass(incidentIds?: Iterable<string>): ReturnType<LogWriter["pass"]>;
  /** Resolves once the witnesses have answered (or timed out) on the latest checkpoint. */
  witnessed(): Promise<void>;
}

export interface LocalLogFeedHandle {
  notify(incidentId: string): void;
  /** Resolves when every incident named so far has been sequenced and signed. */
  idle(): Promise<void>;
}

export interface LocalServer {
  url: string;
  dynamoEndpoint: string;
  token: string;
  tables: TableNames;
  ledger: Ledger;
  stream: LocalStreamHandle;
  caughtUp: number;
  /** The transparency log's signer (its verifier key is printed in the banner) and writer. */
  logSigner: LogSigner;
  logWriter: LocalLogWriter;
  logFeed: LocalLogFeedHandle;
  /** The store thread (dynalite and LevelDB) and the feed thread (projector, log sequencer). */
  storeThread: DynaliteThread;
  feedThread: FeedThread;
  close(): Promise<void>;
}

/**
 * The whole archive in one process, on three threads: this one serves HTTP and runs the app and
 * the client side of its store calls; the store thread (dynalite-worker.mjs) runs dynalite and
 * its LevelDB; the feed thread (feed-worker.ts) runs the projector and the log sequencer, fed
 * each commit by this one. Threads, not processes: a forked dynalite outlived its parent in
 * trials, a thread cannot.
 */
export async function startLocalServer(options: LocalOptions): Promise<LocalServer> {
  const host = options.host ?? "127.0.0.1";
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const named = options.tables ?? tableNamesFromEnv(process.env);
  const tables = { ...named, log: named.log ?? "incident-ledger-log" };
  const logOrigin = options.logOrigin ?? DEFAULT_LOG_ORIGIN;
  // Both threads sign with one key: made here first (the file in dataDir, or text in memory).
  const logKey =
    options.logKey ??
    (options.dataDir ? undefined : formatPrivateKey(logOrigin, generateKeyPairSync("ed25519").privateKey));
  const logSigner = localSigner({
    origin: logOrigin,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(logKey ? { keyText: logKey } : {}),
  });
  const onDeath =
    options.onThreadDeath ??
    ((error: Error) => options.log.error("a thread of the archive died", { error: String(error) }));
  // Summaries read lately, dropped as the feed thread reports each pass of their incident.
  const views = new ViewCache();
  const storeThread = new DynaliteThread(
    { port: options.dynamoPort, host, ...(options.dataDir ? { path: options.dataDir } : {}) },
    onDeath,
  );
  const dynamoEndpoint = await storeThread.endpoint;
  const thread = new FeedThread(
    {
      dynamoEndpoint,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      tables,
      logOrigin,
      ...(logKey ? { logKey } : {}),
      witnesses: options.witnesses ?? [],
      sequenceLog: options.sequenceLog !== false,
      logLevel: (process.env.LOG_LEVEL as Level | undefined) ?? "info",
    },
    options.log,
    (error) => {
      // Before the reads it released go on: no report will say what the thread last stored.
      views.clear();
      onDeath(error);
    },
    (incidentId, view) => (view ? views.saved(incidentId, view) : views.invalidate(incidentId)),
  );
  // The feed thread has caught up (views repaired, log sequenced and signed) when ready.
  const ready = await thread.ready.catch(async (error) => {
    await storeThread.close();
    throw error;
  });
  const db = createDynamoClient(dynamoEndpoint);

  const ledger = createLedger({
    db,
    tables,
    log: options.log,
    onCommit: (item) => thread.commit(item),
    views: (client, table) => views.store(client, table),
    logVerifierKey: async () => logSigner.vkey,
    // Reads wait for the feed thread's pending projections: a write is read back at once.
    settle: {
      incident: (id) => thread.settled(id),
      all: () => thread.ask({ type: "idle" }).then(() => undefined),
    },
  });
  const stream: LocalStreamHandle = {
    publish: (item) => thread.commit(item),
    settled: (id) => thread.settled(id),
    idle: () => thread.ask({ type: "idle" }).then(() => undefined),
  };
  const logWriter: LocalLogWriter = {
    pass: (incidentIds) =>
      thread.ask({ type: "logPass", ...(incidentIds ? { incidentIds: [...incidentIds] } : {}) }) as never,
    witnessed: () => thread.ask({ type: "logWitnessed" }).then(() => undefined),
  };
  const logFeed: LocalLogFeedHandle = {
    notify: (incidentId) => void thread.ask({ type: "logNotify", incidentId }).catch(() => undefined),
    idle: () => thread.ask({ type: "logIdle" }).then(() => undefined),
  };
  const token = options.token ?? randomBytes(24).toString("base64url");
  // One process serves everything here: the API and the pages, the document built once at start.
  const openApi = openApiDocument();
  const users = [{ name: options.writer ?? "local-writer", token, roles: ROLES }, ...(options.users ?? [])];
  const authenticate = tokenUsers(users);
  // The desk signs people in with the same tokens (functions/http/desk/local-desk.ts).
  const desk = localDesk({ ...options, users, releases: ledger.exports, log: options.log });
  const app = ledger.app(authenticate, {
    openApi,
    pages: pageRoutes({ ...ledger.pageDeps(openApi), desk }),
  });
  const server = serve({ fetch: app.fetch, port: options.port, hostname: host });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${(server.address() as AddressInfo).port}`;
  options.log.info("started", {
    url,
    dynamoEndpoint,
    tables,
    createdTables: ready.createdTables,
    caughtUp: ready.caughtUp,
  });

  return {
    url,
    dynamoEndpoint,
    token,
    tables,
    ledger,
    stream,
    caughtUp: ready.caughtUp,
    logSigner,
    logWriter,
    logFeed,
    storeThread,
    feedThread: thread,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.destroy();
      // Projections and log passes in flight finish, then LevelDB is flushed and closed.
      await thread.close();
      await storeThread.close();
    },
  };
}
