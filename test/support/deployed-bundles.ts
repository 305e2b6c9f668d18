import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { createLedgerApp } from "../../infra/ledger-app.js";

// Vitest runs test code through its own module runner; the bundles must load as Lambda's
// Node loads them (plain ESM with their own banner and `import.meta.url`), so import them
// with Node's default loader.
export const nativeImport = new vm.Script("(specifier) => import(specifier)", {
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
}).runInThisContext() as (specifier: string) => Promise<unknown>;

/**
 * Synthesizes the stack with bundling, into a fresh directory: the assets CDK stages are the
 * artifacts `cdk deploy` would upload. `assetFile(fn)` is a function's staged `index.mjs`.
 */
export function synthesizeBundles(prefix: string) {
  const outdir = mkdtempSync(join(tmpdir(), prefix));
  const { app, stack } = createLedgerApp({ outdir, builtinCloudFormationValidation: false });
  const assembly = app.synth();
  const assetFile = (fn: { node: { defaultChild?: unknown } }) => {
    const code = stack.resolve((fn.node.defaultChild as CfnFunction).code) as { s3Key: string };
    return join(assembly.directory, `asset.${code.s3Key.replace(/\.zip$/, "")}`, "index.mjs");
  };
  return { outdir, stack, assembly, assetFile };
}
