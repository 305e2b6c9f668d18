import { handle } from "hono/aws-lambda";
import { createApp } from "../http/app.js";
import { jwtBearer } from "../http/async-auth.js";
import { jwtAuthorizerClaims } from "../http/auth.js";
import { createLedgerCore } from "../ledger-core.js";
import { createLogger } from "../logger.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";
import { evidenceFromEnv } from "./evidence-wiring.js";

// Wiring only: the API Lambda behind the HTTP API (incidents, events, the append, /health, and
// the problem+json 404 for unknown paths). Writers were checked by the JWT authorizer. The pages
// (pages.ts) and the log, feed, exports, releases and /openapi.json (data.ts) are other Lambdas.
const log = createLogger();
const evidence = evidenceFromEnv(process.env, log);
const core = createLedgerCore({
  db: createDynamoClient(),
  tables: tableNamesFromEnv(process.env),
  log,
  ...(evidence ? { evidence } : {}),
});
const groupsClaim = process.env.GROUPS_CLAIM ?? "cognito:groups";
// Public GETs pass no authorizer: a restricted read verifies its bearer token here.
const readers = process.env.READER_JWT_ISSUER
  ? jwtBearer({
      issuer: process.env.READER_JWT_ISSUER,
      audience: (process.env.READER_JWT_AUDIENCE ?? "").split(",").filter(Boolean),
      groupsClaim,
    })
  : async () => null;
export const handler = handle(
  createApp({ log, routes: [core.routes(jwtAuthorizerClaims(groupsClaim), readers)] }),
);
