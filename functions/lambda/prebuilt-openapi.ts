import { gunzipSync } from "node:zlib";

// Replaced when the Lambdas are bundled (esbuild `define`, infra/bundling.ts) by the document
// `openApiDocument()` builds, gzipped and in base64: the Lambdas answer it without the builder
// or zod's JSON-Schema code.
declare const LEDGER_OPENAPI_DOCUMENT_GZIP: string | undefined;

let document: Record<string, unknown> | undefined;

export function prebuiltOpenApi(): Record<string, unknown> {
  if (typeof LEDGER_OPENAPI_DOCUMENT_GZIP === "undefined") {
    throw new Error("no prebuilt OpenAPI document: bundle this entry with infra/bundling.ts");
  }
  document ??= JSON.parse(gunzipSync(Buffer.from(LEDGER_OPENAPI_DOCUMENT_GZIP, "base64")).toString("utf8"));
  return document as Record<string, unknown>;
}
