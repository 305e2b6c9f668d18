import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { LOG_METRICS } from "../../functions/log/log-metrics.js";
import { TIMESTAMP_TICK } from "../../functions/log/timestamp-keeper.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { LOG_TIMESTAMP_DELAY_ALARM } from "../../infra/transparency-log.js";
import { type Json, synthLedger } from "../infra/synth.js";

const TSA = "https://tsa.example/tsr";
let stack: LedgerStack;
let template: Template;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

beforeAll(() => {
  ({ stack, template } = synthLedger({ logOrigin: "archive.example/log", logTsaUrl: TSA }));
});

describe("trusted time in AWS (context logTsaUrl)", () => {
  it("tells the sequencer the TSA's URL and invokes one time-stamping step a minute, apart from the stream", () => {
    const fn: Json = template.toJSON().Resources[id(stack.transparencyLog.sequencer.function)];
    expect(fn.Properties.Environment.Variables.LEDGER_TSA_URL).toBe(TSA);
    const sequencerArn = JSON.stringify({
      "Fn::GetAtt": [id(stack.transparencyLog.sequencer.function), "Arn"],
    });
    const ticks = (Object.values(template.findResources("AWS::Events::Rule")) as Json[]).filter((rule) =>
      (rule.Properties.Targets as Json[]).some(
        (t) => JSON.stringify(t.Arn) === sequencerArn && t.Input === JSON.stringify(TIMESTAMP_TICK),
      ),
    );
    expect(ticks).toHaveLength(1);
    expect(ticks[0].Properties.ScheduleExpression).toBe("rate(1 minute)");
    // The data function serves the tokens: it reads the log table and writes nothing new.
    expect(
      template.toJSON().Resources[id(stack.data.function)].Properties.Environment.Variables.LEDGER_TSA_URL,
    ).toBeUndefined();
  });

  it("alarms when the newest checkpoint waits more than five minutes for a token", () => {
    const alarms = (Object.values(template.findResources("AWS::CloudWatch::Alarm")) as Json[]).filter(
      (a) => a.Properties.MetricName === LOG_METRICS.timestampDelay,
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0].Properties).toMatchObject({
      Namespace: LOG_METRICS.namespace,
      Dimensions: [{ Name: LOG_METRICS.dimension, Value: "archive.example/log" }],
      Statistic: "Maximum",
      Threshold: LOG_TIMESTAMP_DELAY_ALARM.toSeconds(),
      ComparisonOperator: "GreaterThanThreshold",
    });
    expect(LOG_TIMESTAMP_DELAY_ALARM.toSeconds()).toBe(300);
    const topics = Object.keys(template.findResources("AWS::SNS::Topic"));
    expect(alarms[0].Properties.AlarmActions).toEqual([{ Ref: topics[0] }]);
  });

  it("without logTsaUrl: no schedule, no alarm, no URL", () => {
    const plain = synthLedger({ logOrigin: "archive.example/log" });
    const rules = Object.values(plain.template.findResources("AWS::Events::Rule")) as Json[];
    expect(
      rules.some((r) =>
        (r.Properties.Targets as Json[]).some((t) => t.Input === JSON.stringify(TIMESTAMP_TICK)),
      ),
    ).toBe(false);
    const alarms = Object.values(plain.template.findResources("AWS::CloudWatch::Alarm")) as Json[];
    expect(alarms.some((a) => a.Properties.MetricName === LOG_METRICS.timestampDelay)).toBe(false);
  });
});
