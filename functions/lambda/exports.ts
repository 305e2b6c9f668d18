import { streamHandle } from "hono/aws-lambda";
import { exportsApp } from "../http/routes/exports.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";

// Wiring only: the exports, streamed through a function URL in RESPONSE_STREAM mode (up to
// 15 minutes and 200 MB a response); the API redirects `/export/*` here with the tree size pinned.
const log = createLogger();
const ledger = createLedger({ db: createDynamoClient(), tables: tableNamesFromEnv(process.env), log });
const app = exportsApp({ exporter: ledger.exports.exporter, logReader: ledger.exports.logReader, log });
// The public disclosures too, read live (functions/people/people-routes.ts).
app.route("/", ledger.disclosureExport());
export const handler = streamHandle(app);
