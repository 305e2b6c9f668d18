import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { createStreamHandler } from "../projector/stream-handler.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";

// Wiring only: the projector Lambda fed by the events table's stream.
const log = createLogger();
const ledger = createLedger({ db: createDynamoClient(), tables: tableNamesFromEnv(process.env), log });
export const handler = createStreamHandler(ledger.projector, log);
