import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_STREAMING } from "../../infra/export-streaming.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, type Json, synthLedger } from "./synth.js";

let stack: LedgerStack;
let template: Template;
let resources: Record<string, Json>;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

beforeAll(() => {
  ({ stack, template } = synthLedger());
  resources = template.toJSON().Resources;
});

describe("the exports function and its URL", () => {
  it("streams through a public function URL in RESPONSE_STREAM mode, the only URL of the stack", () => {
    const urls = Object.values(template.findResources("AWS::Lambda::Url")) as Json[];
    expect(urls).toHaveLength(1);
    expect(urls[0].Properties).toMatchObject({
      AuthType: "NONE",
      InvokeMode: "RESPONSE_STREAM",
      TargetFunctionArn: { "Fn::GetAtt": [id(stack.exportStreaming.fn.function), "Arn"] },
      Cors: { AllowMethods: ["GET"], AllowOrigins: ["*"] },
    });
    // Anyone may call it through the URL, and only through the URL.
    const permissions = (Object.values(template.findResources("AWS::Lambda::Permission")) as Json[])
      .map((p) => p.Properties)
      .filter((p) => p.FunctionName["Fn::GetAtt"]?.[0] === id(stack.exportStreaming.fn.function));
    expect(permissions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: "lambda:InvokeFunctionUrl",
          FunctionUrlAuthType: "NONE",
          Principal: "*",
        }),
        expect.objectContaining({
          Action: "lambda:InvokeFunction",
          InvokedViaFunctionUrl: true,
          Principal: "*",
        }),
      ]),
    );
    expect(permissions).toHaveLength(2);
  });

  it("runs up to Lambda's 15 minutes with its concurrency capped, on the tables it reads", () => {
    const fn = resources[id(stack.exportStreaming.fn.function)].Properties;
    expect(fn.Timeout).toBe(EXPORT_STREAMING.timeout.toSeconds());
    expect(fn.Timeout).toBe(900);
    expect(fn.MemorySize).toBe(EXPORT_STREAMING.memorySize);
    expect(fn.ReservedConcurrentExecutions).toBe(EXPORT_STREAMING.reservedConcurrency);
    expect(fn.Runtime).toBe("nodejs24.x");
    expect(fn.Environment.Variables).toMatchObject({
      EVENTS_TABLE: { Ref: id(stack.eventsTable) },
      VIEWS_TABLE: { Ref: id(stack.viewsTable) },
      LOG_TABLE: { Ref: id(stack.transparencyLog.table) },
    });
  });

  it("may only read: leaves and checkpoints, the commits they name, the views and snapshots rows start from", () => {
    const grants = actionsByResource(template, id(stack.exportStreaming.fn.role));
    const dynamo = [...grants.entries()]
      .map(
        ([resource, actions]) =>
          [resource, [...actions].filter((a) => a.startsWith("dynamodb:")).sort()] as const,
      )
      .filter(([, actions]) => actions.length > 0);
    expect(Object.fromEntries(dynamo)).toEqual({
      [id(stack.eventsTable)]: ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"],
      // A CSV's rows: the views, 100 a BatchGetItem.
      [id(stack.viewsTable)]: ["dynamodb:BatchGetItem", "dynamodb:GetItem"],
      [id(stack.transparencyLog.table)]: ["dynamodb:GetItem", "dynamodb:Query"],
      // The disclosures export: a scan of the public ones, and each one's event through its claim
      // (as a fold finds an event by its client id).
      [id(stack.people.disclosures)]: ["dynamodb:Scan"],
      [id(stack.claimsTable)]: ["dynamodb:GetItem"],
    });
    const all = [...grants.values()].flatMap((set) => [...set]);
    expect(all.filter((a) => !a.startsWith("dynamodb:")).sort()).toEqual([
      "logs:CreateLogStream",
      "logs:PutLogEvents",
      "xray:PutTelemetryRecords",
      "xray:PutTraceSegments",
    ]);
  });

  it("tells the data Lambda where the exports stream from, so that it redirects there", () => {
    const env = resources[id(stack.data.function)].Properties.Environment.Variables;
    const urlId = Object.keys(template.findResources("AWS::Lambda::Url"))[0];
    expect(env.EXPORTS_URL).toEqual({ "Fn::GetAtt": [urlId, "FunctionUrl"] });
    // The data Lambda itself still answers through API Gateway within its 10 s.
    expect(resources[id(stack.data.function)].Properties.Timeout).toBe(10);
    expect(resources[id(stack.api.function)].Properties.Environment.Variables.EXPORTS_URL).toBeUndefined();
  });
});
