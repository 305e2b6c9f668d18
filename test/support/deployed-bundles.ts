import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import type { CfnElement } from "aws-cdk-lib";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { deskSessionsTable, peopleTables, type TableNames } from "../../functions/store/table-design.js";
import { createLedgerApp } from "../../infra/ledger-app.js";
import { TEST_LOG_ORIGIN } from "../infra/synth.js";
import { installLambdaStreamingGlobals } from "./lambda-streaming.js";
import { type Denial, startRoleStore } from "./role-store.js";

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
  const { app, stack } = createLedgerApp({
    outdir,
    context: { logOrigin: TEST_LOG_ORIGIN },
    builtinCloudFormationValidation: false,
  });
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
    DESK_SESSIONS_TABLE: deskSessionsTable(tables),
    LOG_LEVEL: "warn",
    AWS_REGION: options.region,
    AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "secret",
    DYNAMODB_ENDPOINT: options.endpoint,
  };
}

/**
 * Each table of the stack by its logical id, named as this test's environment names it: what a
 * role store (role-store.ts) judges a call's table by. Read from the functions' environments,
 * where the stack hands each table's name to the code (`EVENTS_TABLE: { Ref: <id> }`).
 */
export function tablesByLogicalId(
  template: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> },
  environment: Record<string, string>,
): Record<string, string> {
  const found: Record<string, string> = {};
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== "AWS::Lambda::Function") continue;
    const variables = (resource.Properties?.Environment as { Variables?: Record<string, unknown> })
      ?.Variables;
    for (const [name, value] of Object.entries(variables ?? {})) {
      const ref = (value as { Ref?: string } | null)?.Ref;
      const table = environment[name];
      if (ref && table && template.Resources[ref]?.Type === "AWS::DynamoDB::Table") found[ref] = table;
    }
  }
  return found;
}

type Construct = { node: { defaultChild?: unknown } };

/**
 * Loads bundles as their Lambdas load, each reaching the store through its own role's policies
 * (role-store.ts): `load(name, fn, role)` imports `fn`'s staged bundle with DYNAMODB_ENDPOINT
 * set to a store that judges its calls as IAM would (the bundles make their client as they
 * load). `denials()` lists every call a role was refused; `close()` stops the stores.
 */
export function roleLoader(
  synthesized: ReturnType<typeof synthesizeBundles>,
  options: { endpoint: string; environment: Record<string, string> },
) {
  const { stack, assembly, assetFile } = synthesized;
  const template = assembly.getStackArtifact(stack.artifactId).template;
  const tables = tablesByLogicalId(template, options.environment);
  const stores: { name: string; denials: Denial[]; close: () => Promise<void> }[] = [];
  return {
    async load<T>(name: string, fn: Construct, role: Construct): Promise<T> {
      const store = await startRoleStore({
        target: options.endpoint,
        template,
        roleLogicalId: stack.getLogicalId(role.node.defaultChild as CfnElement),
        tables,
      });
      stores.push({ name, ...store });
      const before = process.env.DYNAMODB_ENDPOINT;
      process.env.DYNAMODB_ENDPOINT = store.endpoint;
      try {
        return ((await nativeImport(pathToFileURL(assetFile(fn)).href)) as { handler: T }).handler;
      } finally {
        process.env.DYNAMODB_ENDPOINT = before;
      }
    },
    names: () => stores.map((s) => s.name),
    denials: () => stores.flatMap((s) => s.denials.map((d) => ({ role: s.name, ...d }))),
    close: () => Promise.all(stores.map((s) => s.close())).then(() => undefined),
  };
}

/**
 * The exports function and the data Lambda as AWS runs them against an archive's store, each
 * through its role (roleLoader), with the streaming runtime's globals and the exports URL the
 * data Lambda redirects to.
 */
export async function loadExportBundles<Data>(
  synthesized: ReturnType<typeof synthesizeBundles>,
  archive: { tables: TableNames; dynamoEndpoint: string },
  options: { exportsUrl: string; region: string },
) {
  const environment = lambdaEnvironment(archive.tables, {
    endpoint: archive.dynamoEndpoint,
    region: options.region,
  });
  Object.assign(process.env, { ...environment, EXPORTS_URL: options.exportsUrl });
  installLambdaStreamingGlobals();
  const roles = roleLoader(synthesized, { endpoint: archive.dynamoEndpoint, environment });
  const { exportStreaming, data } = synthesized.stack;
  const exports = await roles.load<unknown>("exports", exportStreaming.fn.function, exportStreaming.fn.role);
  return { roles, exports, data: await roles.load<Data>("data", data.function, data.role) };
}
