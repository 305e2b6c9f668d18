import { handle } from "hono/aws-lambda";
import { createLambdaClient, LambdaExportBuilds } from "../export/export-builds.js";
import { jwtBearer } from "../http/async-auth.js";
import { deskFromEnv } from "../http/desk/aws-desk.js";
import { pagesApp } from "../http/routes/site.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";
import { evidenceFromEnv } from "./evidence-wiring.js";
import { logVerifierKeyFromEnv } from "./log-verifier-key.js";
import { prebuiltDocuments } from "./prebuilt-documents.js";

// Wiring only: the dashboard, /docs, /codebook and the desk (sign-in and forms) behind the HTTP API's page routes.
const log = createLogger();
// The desk's evidence form (EVIDENCE_BUCKET where the stack has a desk): bytes put as the API puts them.
const evidence = evidenceFromEnv(process.env, log);
const ledger = createLedger({
  db: createDynamoClient(),
  tables: tableNamesFromEnv(process.env),
  log,
  // Citations: the stack's URL (infra/ledger-stack.ts), never a request's Host.
  ...(process.env.LEDGER_PUBLIC_URL ? { publicUrl: process.env.LEDGER_PUBLIC_URL } : {}),
  ...(evidence ? { evidence } : {}),
  // The desk's proof bundles carry the log's public key, as the data Lambda's do.
  ...logVerifierKeyFromEnv(process.env),
  // A release named at the desk starts its export builds, as POST /releases does.
  ...(process.env.EXPORT_BUILDER
    ? { exportBuilds: new LambdaExportBuilds(createLambdaClient(), process.env.EXPORT_BUILDER) }
    : {}),
});
// No authorizer runs on the pages: a restricted-reader's bearer token is verified here.
const readers = process.env.READER_JWT_ISSUER
  ? jwtBearer({
      issuer: process.env.READER_JWT_ISSUER,
      audience: (process.env.READER_JWT_AUDIENCE ?? "").split(",").filter(Boolean),
      groupsClaim: process.env.GROUPS_CLAIM ?? "cognito:groups",
    })
  : undefined;
const desk = deskFromEnv(process.env, log, {
  revocations: ledger.deskRevocations,
  releases: { ...ledger.exports, publicUrl: ledger.publicUrl },
});
export const handler = handle(
  pagesApp({ ...ledger.pageDeps(prebuiltDocuments(), readers), log, ...(desk ? { desk } : {}) }),
);
