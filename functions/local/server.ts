import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { LocalBlobStore } from "../evidence/local-blob-store.js";
import { type LocalUser, ROLES, tokenUsers } from "../http/auth.js";
import { answerClientError, missingHostAnswer } from "../http/client-error.js";
import { localDesk } from "../http/desk/local-desk.js";
import { pageRoutes } from "../http/routes/site.js";
import { siteDocuments } from "../http/site-documents.js";
import { createLedger, type Ledger } from "../ledger.js";
import { createLogWriter, type LogWriter } from "../log/log-service.js";
import { DEFAULT_LOG_ORIGIN, type LogSigner, localSigner } from "../log/signer.js";
import type { WitnessConfig } from "../log/witness-client.js";
import type { Logger } from "../logger.js";
import { createStreamHandler } from "../projector/stream-handler.js";
import { repairViews } from "../projector/view-repair.js";
import { createTables } from "../store/create-tables.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { type TableNames, tableNamesFromEnv } from "../store/table-design.js";
import { type LocalStore, listenDynalite } from "./dynalite-store.js";
import { LocalSequencing } from "./local-sequencing.js";
import { LocalStream } from "./local-stream.js";

export interface LocalOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Where the archive keeps its files (the store's too, unless `store` is given); undefined: in memory (tests). */
  dataDir?: string;
  /**
   * The store, already listening: `npm start` runs it in a process of its own
   * (store-process.ts). Without it, dynalite starts in this process on `dynamoPort`.
   */
  store?: LocalStore;
  dynamoPort?: number;
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
  /** An RFC 3161 time-stamping authority asked for a token over each new checkpoint (LEDGER_TSA_URL). */
  tsa?: { url: string; timeoutMs?: number; minIntervalMs?: number };
  /** The public origin of absolute links (LEDGER_PUBLIC_URL); default http://localhost:<port>. */
  publicUrl?: string;
  /** LEDGER_EVIDENCE_MAX: the largest evidence upload in bytes (default 256 MiB). */
  evidenceMax?: number;
  /** The desk's session key (LEDGER_SESSION_KEY); else kept in dataDir, or new per run in memory. */
  sessionKey?: string;
}

export interface LocalServer {
  url: string;
  dynamoEndpoint: string;
  token: string;
  tables: TableNames;
  ledger: Ledger;
  /** The stand-in for DynamoDB Streams: what tests and tools wait on. */
  stream: LocalStream;
  /** Views caught up at start (missing or lagging after a crash). */
  caughtUp: number;
  /** The transparency log's signer (its verifier key is printed in the banner) and writer. */
  logSigner: LogSigner;
  logWriter: LogWriter;
  sequencing: LocalSequencing;
  /** Stops: requests in flight finish (within STOP_GRACE_MS), then the projections, the log and the store. */
  close(): Promise<void>;
  /** Cuts off every request still in flight, for a stop that must not wait (a second Ctrl-C). */
  cutOff(): void;
}

/** How long a stop waits for requests in flight before cutting them off. */
export const STOP_GRACE_MS = 10_000;

/**
 * How long the log gathers commits before a sequencer pass: a burst of appends shares one
 * pass and one signed checkpoint, and an acknowledged event is still in the log within a second.
 */
const LOG_PASS_WINDOW_MS = 100;

/**
 * The archive on one machine: the parts AWS runs, composed in one process. dynalite stands in
 * for DynamoDB (in a process of its own under `npm start`, store-process.ts), `LocalStream` for
 * DynamoDB Streams, delivering to the projector Lambda's own handler; the log sequencer and its
 * checkpoint publisher are the log Lambda's; the Hono app is the API, data and pages Lambdas'.
 */
export async function startLocalServer(options: LocalOptions): Promise<LocalServer> {
  const host = options.host ?? "127.0.0.1";
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const store =
    options.store ??
    (await listenDynalite({
      host,
      port: options.dynamoPort ?? 0,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }));
  const dynamoEndpoint = store.endpoint;
  const db = createDynamoClient(dynamoEndpoint);
  const named = options.tables ?? tableNamesFromEnv(process.env);
  const tables = { ...named, log: named.log ?? "incident-ledger-log" };
  const createdTables = await createTables(db, tables);
  // Known once the server listens (port 0 picks one): absolute links are never built from a request's Host.
  let publicDefault = `http://localhost:${options.port}`;
  // Evidence bytes (functions/evidence): DATA_DIR/evidence, or a temporary directory in memory.
  const evidenceDir = options.dataDir
    ? join(options.dataDir, "evidence")
    : mkdtempSync(join(tmpdir(), "ledger-evidence-"));
  const blobs = await LocalBlobStore.open(evidenceDir);

  const logSigner = localSigner({
    origin: options.logOrigin ?? DEFAULT_LOG_ORIGIN,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.logKey ? { keyText: options.logKey } : {}),
  });
  // Both are told of every commit the event store reports, as the stream delivers each to both Lambdas in AWS.
  let stream: LocalStream | undefined;
  let sequencing: LocalSequencing | undefined;
  const ledger = createLedger({
    db,
    tables,
    log: options.log,
    onCommit: (item) => {
      stream?.publish(item);
      sequencing?.notify(item.incidentId?.S ?? "", item);
    },
    logVerifierKey: async () => logSigner.vkey,
    // An erased person's value, or one a refused append discarded, leaves DATA_DIR's files
    // before the answer, not at LevelDB's next compaction (docs/explanation/people.md).
    forgetOverwritten: (table) => store.compact(table),
    evidence: {
      store: blobs,
      log: options.log,
      ...(options.evidenceMax ? { maxBytes: options.evidenceMax } : {}),
    },
    publicUrl: () => options.publicUrl ?? publicDefault,
    // Reads wait for the projection of the writes before them: a write is read back at once.
    pendingProjections: {
      of: (id) => stream?.projected(id) ?? Promise.resolve(),
      all: () => stream?.idle() ?? Promise.resolve(),
    },
  });
  stream = new LocalStream(createStreamHandler(ledger.projector, options.log), options.log, tables.events);

  // Views lag after a crash (the projection in flight died with the process): the repair sweep
  // folds what they missed. One incident's view must not keep the archive from starting.
  const repaired = await repairViews({ ...ledger, log: options.log });
  const caughtUp = repaired.built + repaired.caughtUp;
  // The log catches up on everything stored but not yet sequenced, and signs.
  const logWriter = createLogWriter({
    store: ledger.logStore,
    events: ledger.events,
    signer: logSigner,
    log: options.log,
    ...(options.witnesses ? { witnesses: options.witnesses } : {}),
    // Tokens are asked for beside the passes: a slow or absent authority never holds one back.
    ...(options.tsa ? { tsa: { ...options.tsa, follow: true } } : {}),
  });
  await logWriter.pass();
  sequencing = new LocalSequencing(logWriter, options.log, LOG_PASS_WINDOW_MS);

  const token = options.token ?? randomBytes(24).toString("base64url");
  const users = [{ name: options.writer ?? "local-writer", token, roles: ROLES }, ...(options.users ?? [])];
  const authenticate = tokenUsers(users);
  // One process serves everything here: the API and the pages, the documents built once at start.
  const documents = siteDocuments();
  // The desk signs people in with the same tokens (functions/http/desk/local-desk.ts).
  const desk = localDesk({
    ...options,
    users,
    releases: { ...ledger.exports, publicUrl: ledger.publicUrl },
    revocations: ledger.deskRevocations,
    log: options.log,
  });
  const app = ledger.app(authenticate, {
    openApi: documents.openApi,
    // Pages know a signed-in reader by the same tokens (restricted victims' values).
    pages: pageRoutes({ ...ledger.pageDeps(documents, async (c) => authenticate(c)), desk }),
  });
  const server = serve({
    fetch: (request, env) => missingHostAnswer(env.incoming) ?? app.fetch(request, env),
    port: options.port,
    hostname: host,
    // Node's own Host check answers a bare 400 that no handler sees: missingHostAnswer does instead.
    serverOptions: { requireHostHeader: false },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  server.on("clientError", answerClientError);
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${(server.address() as AddressInfo).port}`;
  publicDefault = `http://localhost:${(server.address() as AddressInfo).port}`;
  options.log.info("started", { url, dynamoEndpoint, tables, createdTables, caughtUp });

  const passes = sequencing;
  const projections = stream;
  return {
    url,
    dynamoEndpoint,
    token,
    tables,
    ledger,
    stream: projections,
    caughtUp,
    logSigner,
    logWriter,
    sequencing: passes,
    async close() {
      const http = server as Server;
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Kept-alive connections with no request would hold the close open: they end now. A
      // request still in flight (a slow upload) has STOP_GRACE_MS, then is cut off, and said so.
      http.closeIdleConnections();
      const grace = setTimeout(() => {
        options.log.warn("stopping: requests still in flight are cut off", { afterMs: STOP_GRACE_MS });
        http.closeAllConnections();
      }, STOP_GRACE_MS);
      await closed;
      clearTimeout(grace);
      // Projections and log passes in flight finish, then dynalite flushes and closes LevelDB.
      await projections.idle();
      await passes.close();
      db.destroy();
      await store.close();
      if (!options.dataDir) rmSync(evidenceDir, { recursive: true, force: true });
    },
    cutOff() {
      (server as Server).closeAllConnections();
    },
  };
}
