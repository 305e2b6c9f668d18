import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { LOG_METRICS } from "../../functions/log/log-metrics.js";
import { COMMIT_SHARD_INDEX } from "../../functions/store/commit-shard.js";
import { COMMIT_TIME_INDEX, LOG_KEYS } from "../../functions/store/table-design.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import {
  LOG_CATCH_UP,
  LOG_CHECKPOINT_DELAY_ALARM,
  LOG_HEARTBEAT,
  SIGNING_KEY_ADMIN_ACTIONS,
} from "../../infra/transparency-log.js";
import { actionsByResource, allAllowedActions, type Json, synthLedger } from "../infra/synth.js";

let stack: LedgerStack;
let template: Template;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

beforeAll(() => {
  ({ stack, template } = synthLedger({ logOrigin: "archive.example/log" }));
});

describe("the transparency log in AWS", () => {
  it("keeps its signing key in KMS: Ed25519, sign/verify, retained", () => {
    const key: Json = template.toJSON().Resources[id(stack.transparencyLog.signingKey)];
    expect(key.Properties).toMatchObject({ KeySpec: "ECC_NIST_EDWARDS25519", KeyUsage: "SIGN_VERIFY" });
    expect(key.DeletionPolicy).toBe("Retain");
  });

  it("lets only the sequencer sign, and only pure Ed25519 (ED25519_SHA_512)", () => {
    const key: Json = template.toJSON().Resources[id(stack.transparencyLog.signingKey)];
    const statements: Json[] = key.Properties.KeyPolicy.Statement;
    const allows = statements.filter((s) => s.Effect === "Allow");
    const signing = allows.filter((s) =>
      [s.Action].flat().some((a: string) => a === "kms:Sign" || a === "kms:*"),
    );
    expect(signing).toHaveLength(1);
    expect(signing[0].Principal).toEqual({
      AWS: { "Fn::GetAtt": [id(stack.transparencyLog.sequencer.role), "Arn"] },
    });
    expect(signing[0].Condition).toEqual({ StringEquals: { "kms:SigningAlgorithm": "ED25519_SHA_512" } });
    // The account administers the key but holds no wildcard at all: none that would include
    // signing, nor kms:Create* (kms:CreateGrant: a grant signs beside any IAM policy) or kms:Put*.
    for (const s of allows.filter((statement) => statement !== signing[0])) {
      for (const action of [s.Action].flat() as string[]) {
        expect(action).not.toContain("*");
        expect(["kms:Sign", "kms:CreateGrant"]).not.toContain(action);
      }
    }
    const admin = allows.find((s) => s.Sid === "AccountAdministersButDoesNotSign");
    expect([admin?.Action].flat()).toEqual([...SIGNING_KEY_ADMIN_ACTIONS]);
    // No IAM policy of any role grants kms:Sign or kms:CreateGrant either.
    expect(allAllowedActions(template)).not.toContain("kms:Sign");
    expect(allAllowedActions(template)).not.toContain("kms:CreateGrant");
  });

  it("denies signing and grants to every principal but the sequencer's role, whatever else allows them", () => {
    const key: Json = template.toJSON().Resources[id(stack.transparencyLog.signingKey)];
    const denies = (key.Properties.KeyPolicy.Statement as Json[]).filter((s) => s.Effect === "Deny");
    expect(denies).toEqual([
      {
        Sid: "NobodyElseSignsOrGrants",
        Effect: "Deny",
        Principal: { AWS: "*" },
        Action: ["kms:Sign", "kms:CreateGrant"],
        Resource: "*",
        Condition: {
          ArnNotEquals: {
            "aws:PrincipalArn": { "Fn::GetAtt": [id(stack.transparencyLog.sequencer.role), "Arn"] },
          },
        },
      },
    ]);
    // Naming the role costs no cycle: the key needs the role, the role's policy the key, and the
    // role itself nothing of the key.
    const resources: Json = template.toJSON().Resources;
    expect(JSON.stringify(resources[id(stack.transparencyLog.sequencer.role)])).not.toContain(
      id(stack.transparencyLog.signingKey),
    );
  });

  it("tells the alarm topic at once of a change to the signing key's policy or grants, its disabling or deletion", () => {
    const rules = template.findResources("AWS::Events::Rule", {
      Properties: { EventPattern: { source: ["aws.kms"] } },
    });
    expect(Object.values(rules)).toHaveLength(1);
    const [rule] = Object.values(rules) as Json[];
    expect(rule.Properties.EventPattern).toEqual({
      source: ["aws.kms"],
      "detail-type": ["AWS API Call via CloudTrail"],
      detail: {
        eventSource: ["kms.amazonaws.com"],
        eventName: ["PutKeyPolicy", "CreateGrant", "DisableKey", "ScheduleKeyDeletion"],
        resources: { ARN: [{ "Fn::GetAtt": [id(stack.transparencyLog.signingKey), "Arn"] }] },
      },
    });
    const topics = Object.keys(template.findResources("AWS::SNS::Topic"));
    expect(topics).toHaveLength(1);
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { Ref: topics[0] } })]);
    // The topic lets EventBridge publish to it.
    const [policy] = Object.values(template.findResources("AWS::SNS::TopicPolicy")) as Json[];
    expect(policy.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Principal: { Service: "events.amazonaws.com" }, Action: "sns:Publish" }),
      ]),
    );
  });

  it("runs the sequencer from the events stream and a schedule, with bounded retries and a failure queue", () => {
    template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      FunctionName: { Ref: id(stack.transparencyLog.sequencer.function) },
      EventSourceArn: { "Fn::GetAtt": [id(stack.eventsTable), "StreamArn"] },
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      MaximumRetryAttempts: 5,
      DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [id(stack.failureQueue), "Arn"] } } },
    });
    // Other schedules (the view-repair sweep) target other functions: exactly one targets the sequencer.
    const sequencerArn = { "Fn::GetAtt": [id(stack.transparencyLog.sequencer.function), "Arn"] };
    const rules = (Object.values(template.findResources("AWS::Events::Rule")) as Json[]).filter((rule) =>
      (rule.Properties.Targets as Json[]).some((t) => JSON.stringify(t.Arn) === JSON.stringify(sequencerArn)),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0].Properties.ScheduleExpression).toMatch(/^rate\(/);
  });

  it("gives the sequencer the log table and reads only; the API reads the log and may add releases only", () => {
    const log = id(stack.transparencyLog.table);
    const sequencer = actionsByResource(template, id(stack.transparencyLog.sequencer.role));
    expect([...(sequencer.get(log) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
      "dynamodb:UpdateItem",
    ]);
    expect([...(sequencer.get(id(stack.eventsTable)) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:Query",
    ]);
    expect(sequencer.get(id(stack.claimsTable))).toBeUndefined();
    // The scheduled catch-up reads commits by time, not the views (an incident may have none).
    expect(sequencer.get(id(stack.viewsTable))).toBeUndefined();
    const events: Json = template.toJSON().Resources[id(stack.eventsTable)];
    expect(events.Properties.GlobalSecondaryIndexes).toContainEqual({
      IndexName: COMMIT_SHARD_INDEX.name,
      KeySchema: [
        { AttributeName: COMMIT_SHARD_INDEX.partitionKey, KeyType: "HASH" },
        { AttributeName: COMMIT_SHARD_INDEX.sortKey, KeyType: "RANGE" },
      ],
      Projection: { ProjectionType: "KEYS_ONLY" },
    });
    // No index whose one key value takes every append.
    const names = (events.Properties.GlobalSecondaryIndexes as Json[]).map((i) => i.IndexName);
    expect(names).not.toContain(COMMIT_TIME_INDEX.name);

    // The data Lambda reads the log and adds releases; the API Lambda has no grant on it at all.
    expect(actionsByResource(template, id(stack.api.role)).get(log)).toBeUndefined();
    const data = actionsByResource(template, id(stack.data.role));
    expect([...(data.get(log) ?? [])].sort()).toEqual([
      "dynamodb:GetItem",
      "dynamodb:PutItem",
      "dynamodb:Query",
    ]);
    const policies = Object.values(template.findResources("AWS::IAM::Policy")) as Json[];
    const apiPuts = policies
      .filter((p) => p.Properties.Roles.some((r: Json) => r.Ref === id(stack.data.role)))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
      .filter(
        (s) => [s.Action].flat().includes("dynamodb:PutItem") && JSON.stringify(s.Resource).includes(log),
      );
    expect(apiPuts).toHaveLength(1);
    expect(apiPuts[0].Condition).toEqual({
      "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["release", "release#*"] },
    });
  });

  it("keeps the log table like the others and tells both functions its name, key and origin", () => {
    const resources: Json = template.toJSON().Resources;
    const table = resources[id(stack.transparencyLog.table)];
    expect(table.DeletionPolicy).toBe("Retain");
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: LOG_KEYS.partitionKey, KeyType: "HASH" },
      { AttributeName: LOG_KEYS.sortKey, KeyType: "RANGE" },
    ]);
    for (const fn of [stack.data, stack.transparencyLog.sequencer]) {
      expect(resources[id(fn.function)].Properties.Environment.Variables).toMatchObject({
        LOG_TABLE: { Ref: id(stack.transparencyLog.table) },
        LOG_KEY_ID: { "Fn::GetAtt": [id(stack.transparencyLog.signingKey), "Arn"] },
        LEDGER_LOG_ORIGIN: "archive.example/log",
      });
    }
  });

  describe("alarms on the sequencer, sent to the stack's alarm topic", () => {
    const sequencerAlarm = (metricName: string): Json => {
      const found = (Object.values(template.findResources("AWS::CloudWatch::Alarm")) as Json[]).filter(
        (a) =>
          a.Properties.MetricName === metricName &&
          (a.Properties.Namespace === LOG_METRICS.namespace ||
            JSON.stringify(a.Properties.Dimensions).includes(id(stack.transparencyLog.sequencer.function))),
      );
      expect(found).toHaveLength(1);
      const topics = Object.keys(template.findResources("AWS::SNS::Topic"));
      expect(found[0].Properties.AlarmActions).toEqual([{ Ref: topics[0] }]);
      return found[0].Properties;
    };

    it("when the sequencer throws", () => {
      expect(sequencerAlarm("Errors")).toMatchObject({
        Namespace: "AWS/Lambda",
        Dimensions: [{ Name: "FunctionName", Value: { Ref: id(stack.transparencyLog.sequencer.function) } }],
        Statistic: "Sum",
        Threshold: 0,
        ComparisonOperator: "GreaterThanThreshold",
      });
    });

    it("when its stream mapping is more than five minutes behind", () => {
      expect(sequencerAlarm("IteratorAge")).toMatchObject({
        Namespace: "AWS/Lambda",
        Dimensions: [{ Name: "FunctionName", Value: { Ref: id(stack.transparencyLog.sequencer.function) } }],
        Statistic: "Maximum",
        Threshold: 300_000,
      });
    });

    it("when it has not run for two catch-up periods, no data counting as no run (a heartbeat)", () => {
      expect(LOG_HEARTBEAT.toMinutes()).toBe(2 * LOG_CATCH_UP.toMinutes());
      expect(sequencerAlarm("Invocations")).toMatchObject({
        Namespace: "AWS/Lambda",
        Dimensions: [{ Name: "FunctionName", Value: { Ref: id(stack.transparencyLog.sequencer.function) } }],
        Statistic: "Sum",
        Period: 1800,
        Threshold: 1,
        ComparisonOperator: "LessThanThreshold",
        EvaluationPeriods: 1,
        TreatMissingData: "breaching",
      });
    });

    it("when events wait for a signed checkpoint, from the metrics the sequencer logs (EMF)", () => {
      const dimensions = [{ Name: LOG_METRICS.dimension, Value: "archive.example/log" }];
      expect(sequencerAlarm(LOG_METRICS.checkpointDelay)).toMatchObject({
        Dimensions: dimensions,
        Statistic: "Maximum",
        Threshold: LOG_CHECKPOINT_DELAY_ALARM.toSeconds(),
        ComparisonOperator: "GreaterThanThreshold",
      });
      expect(sequencerAlarm(LOG_METRICS.leavesBehind)).toMatchObject({
        Dimensions: dimensions,
        Statistic: "Maximum",
        Threshold: 0,
        EvaluationPeriods: 2,
      });
    });
  });
});

describe("an upgrade from the unsharded commit-time index", () => {
  it("keeps both indexes with legacyCommitIndex=true, and the catch-up reads both", () => {
    const upgrading = synthLedger({ logOrigin: "archive.example/log", legacyCommitIndex: "true" });
    const lid = (construct: IConstruct) =>
      upgrading.stack.getLogicalId(construct.node.defaultChild as CfnElement);
    const events: Json = upgrading.template.toJSON().Resources[lid(upgrading.stack.eventsTable)];
    const names = (events.Properties.GlobalSecondaryIndexes as Json[]).map((i) => i.IndexName);
    expect(names).toEqual(expect.arrayContaining([COMMIT_SHARD_INDEX.name, COMMIT_TIME_INDEX.name]));
    const sequencer: Json =
      upgrading.template.toJSON().Resources[lid(upgrading.stack.transparencyLog.sequencer.function)];
    expect(sequencer.Properties.Environment.Variables.LEGACY_COMMIT_INDEX).toBe(COMMIT_TIME_INDEX.name);
    const grants = actionsByResource(upgrading.template, lid(upgrading.stack.transparencyLog.sequencer.role));
    expect(grants.get(`${lid(upgrading.stack.eventsTable)}/index/${COMMIT_TIME_INDEX.name}`)).toBeDefined();
    expect(grants.get(`${lid(upgrading.stack.eventsTable)}/index/${COMMIT_SHARD_INDEX.name}`)).toBeDefined();
  });
});
