import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import dynalite from "dynalite";
import { createLedger } from "../ledger.js";
import { createLogWriter, LocalLogFeed } from "../log/log-service.js";
import { localSigner } from "../log/signer.js";
import type { Level, Logger } from "../log.js";
import { createStreamHandler } from "../projector/stream-handler.js";
import { repairViews } from "../projector/view-repair.js";
import { createTables } from "../store/create-tables.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { ProjectionLanes } from "./projection-lanes.js";
import type { FromStore, StoreWorkerData, ToStore } from "./store-protocol.js";

/**
 * The store thread of `npm start`: dynalite with its LevelDB, the projector and the log
 * sequencer. The request thread keeps HTTP, the app and the client side of an append's store
 * calls; it tells this thread of each commit and waits on its reports (see store-thread.ts).
 */
const port = parentPort;
if (!port) throw new Error("store-worker.ts runs as a worker thread (store-thread.ts starts it)");
const data = workerData as StoreWorkerData;
const send = (message: FromStore) => port.postMessage(message);
const log = forwardingLogger(data.logLevel);

if (data.dataDir) mkdirSync(data.dataDir, { recursive: true });
const store = dynalite({
  createTableMs: 0,
  deleteTableMs: 0,
  updateTableMs: 0,
  ...(data.dataDir ? { path: data.dataDir } : {}),
});
await new Promise<void>((resolve, reject) => {
  store.once("error", reject);
  store.listen(data.dynamoPort, data.host, () => resolve());
});
const dynamoEndpoint = `http://${data.host}:${(store.address() as AddressInfo).port}`;
const db = createDynamoClient(dynamoEndpoint);
const createdTables = await createTables(db, data.tables);
const ledger = createLedger({ db, tables: data.tables, log });

/** How many commits of each incident this thread was told of: the request thread counts the same. */
const received = new Map<string, number>();
const lanes = new ProjectionLanes({
  handler: createStreamHandler(ledger.projector, log),
  log,
  tableName: data.tables.events,
  onSettled: (incidentId) => {
    send({ type: "settled", incidentId, through: received.get(incidentId) ?? 0 });
    received.delete(incidentId);
  },
});

// Views lag after a crash (the in-process feed died with the process): the repair sweep folds
// what they missed. One incident's view must not keep the archive from starting.
const report = await repairViews({ ...ledger, log });
const caughtUp = report.built + report.caughtUp;
// The log catches up on everything stored but not yet sequenced (after a crash), and signs.
const logWriter = createLogWriter({
  store: ledger.log,
  events: ledger.events,
  signer: localSigner({
    origin: data.logOrigin,
    ...(data.dataDir ? { dataDir: data.dataDir } : {}),
    ...(data.logKey ? { keyText: data.logKey } : {}),
  }),
  log,
  witnesses: data.witnesses,
});
const logFeed = new LocalLogFeed(logWriter, log);
const sequencing = data.sequenceLog;
if (sequencing) await logWriter.pass();

port.on("message", (message: ToStore) => {
  if (message.type === "commit") {
    const incidentId = message.item.incidentId?.S ?? "";
    received.set(incidentId, (received.get(incidentId) ?? 0) + 1);
    lanes.publish(message.item);
    // The same commit feed as the projector's: the log sequences it within milliseconds.
    if (sequencing) logFeed.notify(incidentId);
    return;
  }
  void answer(message.id, async () => {
    switch (message.type) {
      case "idle":
        return lanes.idle();
      case "logIdle":
        return logFeed.idle();
      case "logNotify":
        return logFeed.notify(message.incidentId);
      case "logPass": {
        const result = await logWriter.pass(message.incidentIds);
        return JSON.parse(JSON.stringify(result));
      }
      case "close":
        await lanes.idle();
        await logFeed.close();
        db.destroy();
        // dynalite's close waits for LevelDB to flush and close.
        await new Promise<void>((resolve) => store.close(() => resolve()));
        return undefined;
    }
  });
});
send({ type: "ready", dynamoEndpoint, createdTables, caughtUp });

async function answer(id: number, work: () => Promise<unknown> | unknown): Promise<void> {
  try {
    send({ type: "reply", id, value: await work() });
  } catch (error) {
    send({ type: "reply", id, error: String(error) });
  }
}

/** Log lines go to the request thread's logger (one output, in order); below `min` they are dropped here. */
function forwardingLogger(min: Level): Logger {
  const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
  const emit = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (order[level] < order[min]) return;
    try {
      send({ type: "log", level, message, ...(fields ? { fields } : {}) });
    } catch {
      send({ type: "log", level, message, fields: { fields: String(fields) } });
    }
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
