import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, type Json, synthLedger } from "./synth.js";

let stack: LedgerStack;
let template: Template;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

beforeAll(() => {
  ({ stack, template } = synthLedger());
});

describe("the view-repair sweep in AWS", () => {
  it("may scan and query events, and scan, read and write views — nothing on claims, no index, no update or delete", () => {
    const repair = actionsByResource(template, id(stack.viewRepair.fn.role));
    expect([...(repair.get(id(stack.eventsTable)) ?? [])].sort()).toEqual([
      "dynamodb:Query",
      "dynamodb:Scan",
    ]);
    expect([...(repair.get(id(stack.viewsTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Scan",
    ]);
    expect(repair.get(id(stack.claimsTable))).toBeUndefined();
    expect([...repair.keys()].filter((key) => key.includes("/index/") || key.includes("StreamArn"))).toEqual(
      [],
    );
    for (const action of [...repair.values()].flatMap((set) => [...set])) {
      expect(action).not.toMatch(/^dynamodb:(UpdateItem|Delete)|\*/);
    }
  });

  it("runs hourly from an EventBridge schedule, on the shared function defaults with Lambda's longest timeout", () => {
    const resources: Json = template.toJSON().Resources;
    const fn = resources[id(stack.viewRepair.fn.function)].Properties;
    expect(fn).toMatchObject({
      Runtime: "nodejs24.x",
      Architectures: ["arm64"],
      TracingConfig: { Mode: "Active" },
      Timeout: 900,
      Environment: {
        Variables: {
          EVENTS_TABLE: { Ref: id(stack.eventsTable) },
          VIEWS_TABLE: { Ref: id(stack.viewsTable) },
        },
      },
    });
    const rule = resources[id(stack.viewRepair.schedule)].Properties;
    expect(rule.ScheduleExpression).toBe("rate(1 hour)");
    expect(rule.State).toBe("ENABLED");
    expect(rule.Targets).toEqual([
      expect.objectContaining({
        Arn: { "Fn::GetAtt": [id(stack.viewRepair.fn.function), "Arn"] },
        RetryPolicy: { MaximumRetryAttempts: 2 },
      }),
    ]);
    template.hasResourceProperties("AWS::Lambda::Permission", {
      Action: "lambda:InvokeFunction",
      Principal: "events.amazonaws.com",
      FunctionName: { "Fn::GetAtt": [id(stack.viewRepair.fn.function), "Arn"] },
      SourceArn: { "Fn::GetAtt": [id(stack.viewRepair.schedule), "Arn"] },
    });
  });
});
