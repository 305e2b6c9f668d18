import { handle } from "hono/aws-lambda";
import { deskFromEnv } from "../http/desk/aws-desk.js";
import { pagesApp } from "../http/routes/site.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../log.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";
import { prebuiltOpenApi } from "./prebuilt-openapi.js";

// Wiring only: the dashboard, /docs and the desk (sign-in and forms) behind the HTTP API's page routes.
const log = createLogger();
const ledger = createLedger({ db: createDynamoClient(), tables: tableNamesFromEnv(process.env), log });
const desk = deskFromEnv(process.env, log);
export const handler = handle(
  pagesApp({ ...ledger.pageDeps(prebuiltOpenApi()), log, ...(desk ? { desk } : {}) }),
);
