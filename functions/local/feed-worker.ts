import { parentPort, workerData } from "node:worker_threads";
import { createLedger } from "../ledger.js";
import { createLogWriter, LocalLogFeed } from "../log/log-service.js";
import { localSigner } from "../log/signer.js";
import type { Level, Logger } from "../log.js";
import { createStreamHandler } from "../projector/stream-handler.js";
import { repairViews } from "../projector/view-repair.js";
import { createTables } from "../store/create-tables.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import type { FeedWorkerData, FromFeed, SavedView, ToFeed } from "./feed-protocol.js";
import { ProjectionLanes } from "./projection-lanes.js";

/**
 * The feed thread of `npm start`: the projector and the log sequencer, the local stand-ins for
 * the stream-fed Lambdas. The request thread tells it of each commit and waits on its reports
 * (see feed-thread.ts); both reach dynalite, on the store thread, over loopback.
 */
const port = parentPort;
if (!port) throw new Error("feed-worker.ts runs as a worker thread (feed-thread.ts starts it)");
const data = workerData as FeedWorkerData;
const send = (message: FromFeed) => port.postMessage(message);
const log = forwardingLogger(data.logLevel);

const db = createDynamoClient(data.dynamoEndpoint);
const createdTables = await createTables(db, data.tables);
// The summary of each view a pass saved goes to the request thread with the pass's report, so
// the reads waiting for that pass are answered from memory rather than by reading it back.
const savedViews = new Map<string, SavedView>();
const ledger = createLedger({
  db,
  tables: data.tables,
  log,
  feedBatchWrites: true,
  onViewSaved: (item) => {
    const json = item.summary?.S;
    if (json) savedViews.set(item.incidentId?.S ?? "", { version: Number(item.version?.N), json });
  },
});

// A commit waits this long for others of its incident before its projection (a read that
// waits for it cuts the wait short): one view write for a hot incident's burst, not one a commit.
const PROJECTION_BATCHING_WINDOW_MS = 10;
const lanes = new ProjectionLanes({
  handler: createStreamHandler(ledger.projector, log),
  log,
  tableName: data.tables.events,
  batchingWindowMs: PROJECTION_BATCHING_WINDOW_MS,
  // As many passes at once as one batch write takes: their views go out together
  // (GroupedViewStore), so more lanes mean fuller batches, not more store calls (in-process lag
  // p99 at 16 writers 177 → 70 ms against 8 lanes, same load).
  concurrency: 25,
  onProgress: (incidentId, through, idle) => {
    const view = savedViews.get(incidentId);
    savedViews.delete(incidentId);
    send({ type: "settled", incidentId, through, idle, ...(view ? { view } : {}) });
  },
});

// Views lag after a crash (the in-process feed died with the process): the repair sweep folds
// what they missed. One incident's view must not keep the archive from starting.
const report = await repairViews({ ...ledger, log });
// The repair's views go to no read's report: what it saved is read from the store.
savedViews.clear();
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
  ...(data.tsa ? { tsa: { ...data.tsa, follow: true } } : {}), // tsa (issue 21)
});
// A pass costs a Query per incident named, leaf puts and a signed checkpoint: gathering 30 ms
// of commits per pass, not 5, left the store thread more room for appends (w1-one profile,
// 47/31 → 62/81/62 req/s, alternating, load ~10), and 100 ms cut the log's store calls an
// append from 0.83 to 0.29 with one writer (count-npm-start.ts); the goal is a checkpoint within
// a second. A proof asked with wait=true waits that much longer.
const LOG_BATCHING_WINDOW_MS = 100;
const logFeed = new LocalLogFeed(logWriter, log, LOG_BATCHING_WINDOW_MS);
const sequencing = data.sequenceLog;
if (sequencing) await logWriter.pass();

port.on("message", (message: ToFeed) => {
  if (message.type === "commit") {
    const incidentId = message.item.incidentId?.S ?? "";
    lanes.publish(message.item);
    // The same commit feed as the projector's: the log sequences it within milliseconds.
    if (sequencing) logFeed.notify(incidentId, message.item);
    return;
  }
  if (message.type === "hurry") return lanes.hurry(message.incidentId);
  void answer(message.id, async () => {
    switch (message.type) {
      case "idle":
        return lanes.idle();
      case "logIdle":
        return logFeed.idle();
      case "logNotify":
        return logFeed.notify(message.incidentId);
      case "logWitnessed":
        return logWriter.witnessed();
      case "logPass": {
        const result = await logWriter.pass(message.incidentIds);
        return JSON.parse(JSON.stringify(result));
      }
      case "close":
        await lanes.idle();
        await logFeed.close();
        db.destroy();
        return undefined;
    }
  });
});
send({ type: "ready", createdTables, caughtUp });

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
