import { Template } from "aws-cdk-lib/assertions";
import { createLedgerApp } from "../../infra/ledger-app.js";

/** The log origin the tests deploy with: a deploy must name one (infra/transparency-log.ts). */
export const TEST_LOG_ORIGIN = "archive.example/incident-ledger";

/**
 * The deployed app (with its cdk-nag checks), synthesized for template tests: bundling is
 * skipped (the bundle test does it once, for real), and so is CDK's built-in CloudFormation
 * validation, which costs seconds of WebAssembly per synth and which `cfn-lint` covers.
 * `context` adds to (or overrides) the required `logOrigin`.
 */
export function synthLedger(context: Record<string, unknown> = {}) {
  const { app, stack } = createLedgerApp({
    context: { "aws:cdk:bundling-stacks": [], logOrigin: TEST_LOG_ORIGIN, ...context },
    builtinCloudFormationValidation: false,
  });
  return { app, stack, template: Template.fromStack(stack) };
}

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON is loosely typed; tests assert on it.
export type Json = any;

/**
 * What each IAM statement of a role allows, keyed by resource: `EventsTableX` for a table's
 * ARN, `ViewsTableX/index/byActivity` for an index, `EventsTableX.StreamArn`, or a literal.
 */
export function actionsByResource(template: Template, roleLogicalId: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const policy of Object.values(template.findResources("AWS::IAM::Policy") as Record<string, Json>)) {
    const roles: Json[] = policy.Properties.Roles ?? [];
    if (!roles.some((r) => r.Ref === roleLogicalId)) continue;
    for (const statement of policy.Properties.PolicyDocument.Statement as Json[]) {
      if (statement.Effect !== "Allow") continue;
      for (const resource of [statement.Resource].flat()) {
        const key = resourceKey(resource);
        const set = out.get(key) ?? new Set<string>();
        for (const action of [statement.Action].flat()) set.add(action);
        out.set(key, set);
      }
    }
  }
  return out;
}

/** A policy resource as text: a table's logical id, `<id>/index/<name>`, or the string itself. */
export function resourceKey(resource: Json): string {
  if (typeof resource === "string") return resource;
  const getAtt = resource["Fn::GetAtt"];
  if (getAtt) return getAtt[1] === "Arn" ? getAtt[0] : `${getAtt[0]}.${getAtt[1]}`;
  const join = resource["Fn::Join"];
  if (join && join[0] === "") return (join[1] as Json[]).map(resourceKey).join("");
  return JSON.stringify(resource);
}

/** Every action any IAM policy of the template allows, wherever it is written (but for the roles named). */
export function allAllowedActions(template: Template, exceptRoles: readonly string[] = []): string[] {
  const documents: Json[] = [];
  for (const policy of Object.values(template.findResources("AWS::IAM::Policy") as Record<string, Json>)) {
    const roles: Json[] = policy.Properties.Roles ?? [];
    if (roles.some((r) => exceptRoles.includes(r.Ref))) continue;
    documents.push(policy.Properties.PolicyDocument);
  }
  for (const policy of Object.values(
    template.findResources("AWS::IAM::ManagedPolicy") as Record<string, Json>,
  )) {
    documents.push(policy.Properties.PolicyDocument);
  }
  for (const role of Object.values(template.findResources("AWS::IAM::Role") as Record<string, Json>)) {
    for (const inline of role.Properties.Policies ?? []) documents.push(inline.PolicyDocument);
  }
  return documents
    .flatMap((doc) => doc.Statement as Json[])
    .filter((statement) => statement.Effect === "Allow")
    .flatMap((statement) => [statement.Action].flat());
}
