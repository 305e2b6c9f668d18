import { handle } from "hono/aws-lambda";
import { jwtAuthorizerClaims } from "../http/auth.js";
import { createLedger } from "../ledger.js";
import { createLogger } from "../log.js";
import { createDynamoClient } from "../store/dynamo-client.js";
import { tableNamesFromEnv } from "../store/table-design.js";
import { prebuiltOpenApi } from "./prebuilt-openapi.js";

// Wiring only: the API Lambda behind the HTTP API. Writers were checked by the JWT authorizer.
// The pages are another Lambda (pages.ts); the OpenAPI document was built at bundle time.
const ledger = createLedger({
  db: createDynamoClient(),
  tables: tableNamesFromEnv(process.env),
  log: createLogger(),
});
export const handler = handle(ledger.app(jwtAuthorizerClaims(), { openApi: prebuiltOpenApi() }));
