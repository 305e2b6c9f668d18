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
  it("may scan and query events, and scan, read and write views — claims read only, no index, no delete but of orphan disclosures, updates of the editorial index only", () => {
    const repair = actionsByResource(template, id(stack.viewRepair.fn.role));
    expect([...(repair.get(id(stack.eventsTable)) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:Query",
      "dynamodb:Scan",
    ]);
    expect([...(repair.get(id(stack.viewsTable)) ?? [])].sort()).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:BatchWriteItem",
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Scan",
      "dynamodb:UpdateItem",
    ]);
    // Whether an orphan disclosure's event is stored: its claim, then the commit it names.
    expect([...(repair.get(id(stack.claimsTable)) ?? [])]).toEqual(["dynamodb:GetItem"]);
    expect([...repair.keys()].filter((key) => key.includes("/index/") || key.includes("StreamArn"))).toEqual(
      [],
    );
    const disclosures = id(stack.people.disclosures);
    expect([...(repair.get(disclosures) ?? [])].sort()).toEqual([
      "dynamodb:DeleteItem",
      "dynamodb:Scan",
      "dynamodb:UpdateItem",
    ]);
    for (const [resource, actions] of repair) {
      if (resource === disclosures) continue;
      for (const action of actions) expect(action).not.toMatch(/^dynamodb:Delete|\*/);
    }
    // Every UpdateItem it is given is of an editorial index entry (a lagging view's projection,
    // or a rebuilt view's links and attributions), by key: never a view or an event; or of an orphan
    // disclosure's time, naming no other attribute.
    const updates = Object.values(template.findResources("AWS::IAM::Policy"))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(id(stack.viewRepair.fn.role)))
      .flatMap((p) =>
        (
          p.Properties.PolicyDocument.Statement as {
            Action: unknown;
            Condition?: unknown;
            Resource: unknown;
          }[]
        ).filter((st) => [st.Action].flat().includes("dynamodb:UpdateItem")),
      );
    // Its one scan of disclosures reads the keys and times only: IAM refuses a scan that would
    // read a value (another attribute, or no projection at all).
    const disclosureScans = Object.values(template.findResources("AWS::IAM::Policy"))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(id(stack.viewRepair.fn.role)))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
      .filter(
        (st) =>
          [st.Action].flat().includes("dynamodb:Scan") && JSON.stringify(st.Resource).includes(disclosures),
      );
    expect(disclosureScans).toHaveLength(1);
    expect(disclosureScans[0]).toMatchObject({
      Action: "dynamodb:Scan",
      Resource: { "Fn::GetAtt": [disclosures, "Arn"] },
      Condition: {
        "ForAllValues:StringEquals": { "dynamodb:Attributes": ["incidentId", "key", "eventId", "writtenAt"] },
        StringEquals: { "dynamodb:Select": "SPECIFIC_ATTRIBUTES" },
      },
    });
    expect(updates).toHaveLength(2);
    for (const update of updates) {
      if (JSON.stringify(update.Resource).includes(disclosures)) {
        expect(update.Action).toBe("dynamodb:UpdateItem");
        expect(update.Condition).toEqual({
          "ForAllValues:StringEquals": {
            "dynamodb:Attributes": ["incidentId", "key", "eventId", "writtenAt"],
          },
        });
      } else
        expect(update.Condition).toEqual({
          "ForAllValues:StringLike": {
            "dynamodb:LeadingKeys": ["*#links-in", "*#links-out", "*#attributions"],
          },
        });
    }
  });

  it("tells the sweep the disclosures table, and no other role may delete there", () => {
    const resources: Json = template.toJSON().Resources;
    const variables = resources[id(stack.viewRepair.fn.function)].Properties.Environment.Variables;
    expect(variables.DISCLOSURES_TABLE).toEqual({ Ref: id(stack.people.disclosures) });
    for (const role of [stack.api.role, stack.pages.role, stack.data.role, stack.projector.role]) {
      const actions = actionsByResource(template, id(role)).get(id(stack.people.disclosures)) ?? new Set();
      expect([...actions].filter((a) => a.startsWith("dynamodb:Delete"))).toEqual([]);
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

  describe("its alarms, on the stack's alarm topic", () => {
    const alarmsOfRepair = () =>
      Object.values(template.findResources("AWS::CloudWatch::Alarm") as Record<string, Json>)
        .map((alarm) => alarm.Properties)
        .filter((alarm) => JSON.stringify(alarm).includes(`"${id(stack.viewRepair.fn.function)}"`));
    const topic = () => Object.keys(template.findResources("AWS::SNS::Topic"))[0];
    const fnDimension = () => [{ Name: "FunctionName", Value: { Ref: id(stack.viewRepair.fn.function) } }];

    it("raises one when a run fails: a view it could not repair, an exception, or its timeout", () => {
      expect(alarmsOfRepair().filter((a) => a.MetricName === "Errors")).toEqual([
        expect.objectContaining({
          Namespace: "AWS/Lambda",
          Dimensions: fnDimension(),
          Statistic: "Sum",
          Threshold: 0,
          ComparisonOperator: "GreaterThanThreshold",
          EvaluationPeriods: 1,
        }),
      ]);
    });

    it("raises one when no run finishes in two schedule periods, counting no data as no run", () => {
      const [alarm, ...others] = alarmsOfRepair().filter((a) => a.Metrics);
      expect(others).toEqual([]);
      expect(alarm).toMatchObject({
        ComparisonOperator: "LessThanThreshold",
        Threshold: 1,
        EvaluationPeriods: 2,
        DatapointsToAlarm: 2,
        TreatMissingData: "breaching",
      });
      const byId = Object.fromEntries((alarm.Metrics as Json[]).map((m) => [m.Id, m]));
      expect((alarm.Metrics as Json[]).filter((m) => m.Expression)).toEqual([
        expect.objectContaining({ Expression: "invocations - FILL(errors, 0)" }),
      ]);
      for (const [name, metricName] of [
        ["invocations", "Invocations"],
        ["errors", "Errors"],
      ]) {
        expect(byId[name as string].MetricStat).toMatchObject({
          Metric: { Namespace: "AWS/Lambda", MetricName: metricName, Dimensions: fnDimension() },
          Period: 3600,
          Stat: "Sum",
        });
        expect(byId[name as string].ReturnData).toBe(false);
      }
    });

    it("raises one when a run takes over 80 % of its timeout, before the table outgrows it", () => {
      expect(alarmsOfRepair().filter((a) => a.MetricName === "Duration")).toEqual([
        expect.objectContaining({
          Namespace: "AWS/Lambda",
          Dimensions: fnDimension(),
          Statistic: "Maximum",
          Threshold: 900_000 * 0.8,
          ComparisonOperator: "GreaterThanThreshold",
        }),
      ]);
    });

    it("sends all three to the alarm topic", () => {
      const alarms = alarmsOfRepair();
      expect(alarms).toHaveLength(3);
      for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topic() }]);
    });
  });
});
