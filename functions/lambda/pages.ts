import { handle } from "hono/aws-lambda";
import { pagesApp } from "../http/routes/site.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../log.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";
import { prebuiltOpenApi } from "./prebuilt-openapi.js";

// Wiring only: the dashboard and /docs behind the HTTP API's page routes, read-only.
const log = createLogger();
const ledger = createLedger({
  db: createDynamoClient(),
  tables: tableNamesFromEnv(process.env),
  log,
  // Citations: the stack's URL (infra/ledger-stack.ts), never a request's Host.
  ...(process.env.LEDGER_PUBLIC_URL ? { publicUrl: process.env.LEDGER_PUBLIC_URL } : {}),
});
export const handler = handle(pagesApp({ ...ledger.pageDeps(prebuiltOpenApi()), log }));
