import { type BundlingOptions, OutputFormat, SourceMapMode } from "aws-cdk-lib/aws-lambda-nodejs";

/**
 * How every Lambda of the stack is bundled: one place, so the deployed artifact and the one
 * the bundle test runs are built alike (the test synthesizes the stack with bundling on and
 * imports the very files CDK would upload).
 */

/**
 * ESM bundles still meet CommonJS inside dependencies (the AWS SDK does `require("node:https")`
 * lazily); esbuild's ESM output has no `require`, so we give it one. Without this banner the
 * SDK fails at the first request with "Dynamic require of node:https is not supported".
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __ledgerCreateRequire } from 'node:module'; const require = __ledgerCreateRequire(import.meta.url);";

export const LAMBDA_BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  // node20 is what the machines here run; the code it emits runs unchanged on nodejs24.x.
  target: "node20",
  // Prefer packages' ESM builds so esbuild can tree-shake them.
  mainFields: ["module", "main"],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
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
