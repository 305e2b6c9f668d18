import { gunzipSync } from "node:zlib";
import type { SiteDocuments } from "../http/site-documents.js";

// Replaced when the Lambdas are bundled (esbuild `define`, infra/bundling.ts) by the document
// `openApiDocument()` builds and by docs/reference/codebook.md, each gzipped and in base64: the
// Lambdas answer them without the builder, zod's JSON-Schema code or a file beside the bundle.
declare const LEDGER_OPENAPI_DOCUMENT_GZIP: string | undefined;
declare const LEDGER_CODEBOOK_GZIP: string | undefined;

const inflate = (base64: string) => gunzipSync(Buffer.from(base64, "base64")).toString("utf8");

let documents: SiteDocuments | undefined;

export function prebuiltDocuments(): SiteDocuments {
  if (typeof LEDGER_OPENAPI_DOCUMENT_GZIP === "undefined" || typeof LEDGER_CODEBOOK_GZIP === "undefined") {
    throw new Error("no prebuilt documents: bundle this entry with infra/bundling.ts");
  }
  documents ??= {
    openApi: JSON.parse(inflate(LEDGER_OPENAPI_DOCUMENT_GZIP)) as Record<string, unknown>,
    codebook: inflate(LEDGER_CODEBOOK_GZIP),
  };
  return documents;
}
