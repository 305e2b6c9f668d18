import { gzipSync } from "node:zlib";
import { type BundlingOptions, OutputFormat, SourceMapMode } from "aws-cdk-lib/aws-lambda-nodejs";
import { siteDocuments } from "../functions/http/site-documents.js";

/**
 * How every Lambda of the stack is bundled: one place, so the deployed artifact and the one
 * the bundle test runs are built alike (the test synthesizes the stack with bundling on and
 * imports the very files CDK would upload).
 */

/**
 * ESM output has no `require`, yet CommonJS code inside dependencies calls it for Node
 * builtins; esbuild turns those calls into a shim that throws "Dynamic require of
 * node:https is not supported" unless a real `require` exists. Preferring packages' ESM
 * builds (`mainFields` below) avoids most such calls; this banner covers the rest. The bundle
 * test fails with exactly that error when both are removed.
 */
const ESM_REQUIRE_BANNER =
  "import { createRequire as __ledgerCreateRequire } from 'node:module'; const require = __ledgerCreateRequire(import.meta.url);";

/** A text as an esbuild `define` value: a string literal of its gzip, in base64. */
const gzippedDefine = (text: string) => JSON.stringify(gzipSync(text, { level: 9 }).toString("base64"));

const documents = siteDocuments();

export const LAMBDA_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  // node20 is what the machines here run; the code it emits runs unchanged on nodejs24.x.
  target: "node20",
  // Prefer packages' ESM builds: tree-shakeable, and free of CommonJS `require` calls.
  mainFields: ["module", "main"],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  // The site's documents, inlined where functions/lambda/prebuilt-documents.ts reads them: the
  // OpenAPI document built here from `openApiDocument()` (so the data and pages Lambdas carry
  // the JSON, not the builder and zod's JSON-Schema code, which every cold start would load) and
  // docs/reference/codebook.md (no file travels beside a bundle). esbuild runs without a shell
  // when bundling locally, so the text needs no quoting. Each goes gzipped (base64): a `--define`
  // is one command-line argument, and Linux refuses one over 128 KiB (E2BIG).
  define: {
    LEDGER_OPENAPI_DOCUMENT_GZIP: gzippedDefine(JSON.stringify(documents.openApi)),
    LEDGER_CODEBOOK_GZIP: gzippedDefine(documents.codebook),
  },
  sourceMap: true,
  sourceMapMode: SourceMapMode.EXTERNAL,
  // Stack traces need the mappings, not our source text inside every upload.
  sourcesContent: false,
  // Bundle the pinned SDK instead of trusting the runtime's copy: the artifact the tests run
  // is then byte for byte the one deployed, and a runtime SDK update cannot change behaviour.
  bundleAwsSDK: true,
  // Local esbuild only: no Docker on the build machines, and none needed.
  forceDockerBundling: false,
};
