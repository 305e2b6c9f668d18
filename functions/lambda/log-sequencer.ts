import { KMSClient } from "@aws-sdk/client-kms";
import { RecentCommitIncidents } from "../log/incident-lister.js";
import { createLogHandler } from "../log/log-handler.js";
import { createLogWriter, type LogWriter } from "../log/log-service.js";
import { LogStore } from "../log/log-store.js";
import { DEFAULT_LOG_ORIGIN, kmsSigner } from "../log/signer.js";
import { parseWitnesses } from "../log/witness-client.js";
import { createLogger } from "../logger.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { EventStore } from "../store/event-store.js";
import { tableNamesFromEnv } from "../store/table-design.js";

// Wiring only: the log sequencer and checkpoint signer, fed by the events table's stream and a
// schedule. The only function that may use the log's KMS key to sign.
const env = process.env;
const log = createLogger();
const db = createDynamoClient();
const tables = tableNamesFromEnv(env);
let writer: Promise<LogWriter> | undefined;

async function startWriter(): Promise<LogWriter> {
  const signer = await kmsSigner({
    origin: env.LEDGER_LOG_ORIGIN ?? DEFAULT_LOG_ORIGIN,
    keyId: env.LOG_KEY_ID ?? "",
    kms: new KMSClient({}),
  });
  const store = new LogStore(db, tables.log ?? "incident-ledger-log");
  return createLogWriter({
    store,
    events: new EventStore({ db, tables }),
    catchUp: new RecentCommitIncidents(
      db,
      tables.events,
      store,
      Date.now,
      undefined,
      env.LEGACY_COMMIT_INDEX || null,
    ),
    signer,
    log,
    witnesses: parseWitnesses(env.LEDGER_WITNESSES),
    // Tokens over checkpoints: asked on the time-stamping schedule only (log-handler.ts).
    ...(env.LEDGER_TSA_URL ? { tsa: { url: env.LEDGER_TSA_URL, follow: false } } : {}),
  });
}

function getWriter(): Promise<LogWriter> {
  if (!writer) {
    writer = startWriter();
    // The next invocation asks KMS again rather than keep a failed start.
    writer.catch(() => {
      writer = undefined;
    });
  }
  return writer;
}

export const handler = createLogHandler(getWriter, log);
