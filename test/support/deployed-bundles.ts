import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { peopleTables, type TableNames } from "../../functions/store/table-design.js";
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

/**
 * The environment a deployed Lambda starts with, against this test's store: every table as
 * the stack names it to the functions, the region and credentials the runtime provides, and
 * the local endpoint in place of DynamoDB's.
 */
export function lambdaEnvironment(
  tables: TableNames,
  options: { endpoint: string; region: string },
): Record<string, string> {
  const people = peopleTables(tables);
  return {
    EVENTS_TABLE: tables.events,
    CLAIMS_TABLE: tables.claims,
    VIEWS_TABLE: tables.views,
    LOG_TABLE: tables.log ?? "incident-ledger-log",
    DISCLOSURES_TABLE: people.disclosures,
    AUDIT_TABLE: people.audit,
    ...(tables.search ? { SEARCH_TABLE: tables.search } : {}),
    ...(tables.deskSessions ? { DESK_SESSIONS_TABLE: tables.deskSessions } : {}),
    LOG_LEVEL: "warn",
    AWS_REGION: options.region,
    AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "secret",
    DYNAMODB_ENDPOINT: options.endpoint,
  };
}
