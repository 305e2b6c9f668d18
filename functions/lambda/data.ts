import { handle } from "hono/aws-lambda";
import { createLambdaClient, LambdaExportBuilds } from "../export/export-builds.js";
import { ExportBucketLinks } from "../export/export-links.js";
import { createS3Client } from "../export/s3-client.js";
import { jwtAuthorizerClaims } from "../http/auth.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../logger.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";
import { evidenceFromEnv } from "./evidence-wiring.js";
import { logVerifierKeyFromEnv } from "./log-verifier-key.js";
import { prebuiltDocuments } from "./prebuilt-documents.js";

// Wiring only: the data Lambda behind the HTTP API: the transparency log's routes, /feed,
// /export/... (redirected to the built object or the streaming function), /releases and /openapi.json. POST
// /releases' writers were checked by the JWT authorizer; the OpenAPI document was built at
// bundle time.
const log = createLogger();
// Proof bundles carry the evidence bytes an event names (functions/evidence/proof-bundle.ts).
const evidence = evidenceFromEnv(process.env, log);
const ledger = createLedger({
  db: createDynamoClient(),
  tables: tableNamesFromEnv(process.env),
  log,
  // Release links and citations: the stack's URL (infra/ledger-stack.ts), never a request's Host.
  ...(process.env.LEDGER_PUBLIC_URL ? { publicUrl: process.env.LEDGER_PUBLIC_URL } : {}),
  ...(evidence ? { evidence } : {}),
  // Under the function's 10 s timeout: a proof that is not ready by then answers 202, not a 5xx.
  proofWaitMs: 8_000,
  // Exports outgrow API Gateway (6 MB, 30 s): they are redirected to the streaming function.
  ...(process.env.EXPORTS_URL ? { exportsUrl: process.env.EXPORTS_URL } : {}),
  // Past the function URL's 200 MB: exports built once into the bucket are served from there
  // (a presigned GET: any size, Range), and each new release starts its builds.
  ...(process.env.EXPORTS_BUCKET
    ? { storedExports: new ExportBucketLinks(createS3Client(), process.env.EXPORTS_BUCKET) }
    : {}),
  ...(process.env.EXPORT_BUILDER
    ? { exportBuilds: new LambdaExportBuilds(createLambdaClient(), process.env.EXPORT_BUILDER) }
    : {}),
  ...logVerifierKeyFromEnv(process.env),
});
export const handler = handle(
  ledger.app(jwtAuthorizerClaims(process.env.GROUPS_CLAIM ?? "cognito:groups"), {
    openApi: prebuiltDocuments().openApi,
    groups: ["data"],
  }),
);
