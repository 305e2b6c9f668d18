// Replaced when the Lambdas are bundled (esbuild `define`, infra/bundling.ts) by the document
// `openApiDocument()` builds: the Lambdas answer it without the builder or zod's JSON-Schema code.
declare const LEDGER_OPENAPI_DOCUMENT: Record<string, unknown> | undefined;

export function prebuiltOpenApi(): Record<string, unknown> {
  if (typeof LEDGER_OPENAPI_DOCUMENT === "undefined") {
    throw new Error("no prebuilt OpenAPI document: bundle this entry with infra/bundling.ts");
  }
  return LEDGER_OPENAPI_DOCUMENT;
}
