import { Duration, RemovalPolicy, Validations } from "aws-cdk-lib";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as dynamodb from "aws-cdk-lib/aws-dynamodb";
import * as events from "aws-cdk-lib/aws-events";
import * as targets from "aws-cdk-lib/aws-events-targets";
import * as iam from "aws-cdk-lib/aws-iam";
import * as kms from "aws-cdk-lib/aws-kms";
import * as lambda from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import type * as sns from "aws-cdk-lib/aws-sns";
import type * as sqs from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { LOG_METRICS } from "../functions/log/log-metrics.js";
import { KMS_SIGNING_ALGORITHM } from "../functions/log/signer.js";
import { TIMESTAMP_TICK } from "../functions/log/timestamp-keeper.js";
import { COMMIT_SHARD_INDEX } from "../functions/store/commit-shard.js";
import { COMMIT_ITEM_TYPE, COMMIT_TIME_INDEX, LOG_KEYS } from "../functions/store/table-design.js";
import { DurableTable } from "./durable-table.js";
import { LedgerFunction } from "./ledger-function.js";
import { grantTableActions } from "./table-access.js";

/** The sequencer's stream settings (the template tests hold the stack to them). */
export const LOG_SEQUENCER_STREAM = {
  batchSize: 500,
  // Commits of one second are sequenced in one pass and one signature.
  maxBatchingWindow: Duration.seconds(1),
  retryAttempts: 5,
  maxRecordAge: Duration.hours(1),
} as const;
/** How often the sequencer catches up on everything (what a lost stream delivery left behind). */
export const LOG_CATCH_UP = Duration.minutes(15);
/** The context key naming the log's origin: required, since an origin is permanent once published. */
export const DEFAULT_ORIGIN_CONTEXT = "logOrigin";
/** No sequencer invocation for this long (two catch-up periods) raises the alarm: the log is not being signed. */
export const LOG_HEARTBEAT = Duration.minutes(LOG_CATCH_UP.toMinutes() * 2);
/** Events older than this without a signed checkpoint raise the alarm (a stream retry cycle is ~minutes). */
export const LOG_CHECKPOINT_DELAY_ALARM = Duration.minutes(10);
/** How often the sequencer takes one time-stamping step when a TSA is configured (`logTsaUrl`). */
export const LOG_TIMESTAMP_SCHEDULE = Duration.minutes(1);
/** The newest checkpoint without an RFC 3161 token for longer than this raises the alarm. */
export const LOG_TIMESTAMP_DELAY_ALARM = Duration.minutes(5);

/**
 * What the account may do with the signing key, one action at a time: no wildcard, so no
 * kms:Sign and no kms:CreateGrant (a grant is a way to sign that no IAM policy shows).
 * kms:PutKeyPolicy stays: CloudFormation updates the policy with it, and KMS refuses a policy
 * that would lock the account out of the key. Changing the key policy is therefore how an
 * administrator could still take the right to sign: it is a CloudTrail management event.
 */
export const SIGNING_KEY_ADMIN_ACTIONS = [
  "kms:DescribeKey",
  "kms:GetKeyPolicy",
  "kms:GetKeyRotationStatus",
  "kms:GetPublicKey",
  "kms:ListGrants",
  "kms:ListKeyPolicies",
  "kms:ListResourceTags",
  "kms:PutKeyPolicy",
  "kms:UpdateKeyDescription",
  "kms:CreateAlias",
  "kms:UpdateAlias",
  "kms:DeleteAlias",
  "kms:EnableKey",
  "kms:DisableKey",
  "kms:RevokeGrant",
  "kms:TagResource",
  "kms:UntagResource",
  "kms:ScheduleKeyDeletion",
  "kms:CancelKeyDeletion",
] as const;

/** The calls on the signing key that are told at once (TransparencyLog.watchSigningKey). */
export const SIGNING_KEY_WATCHED_CALLS = [
  "PutKeyPolicy",
  "CreateGrant",
  "DisableKey",
  "ScheduleKeyDeletion",
] as const;

/**
 * The log's origin, from context `logOrigin`. Required: it is in every signed checkpoint and in
 * the verifier key users keep, so a deploy that forgot it must fail rather than quietly sign
 * under another name. Every deploy gives the same value (kept in cdk.json's "context").
 */
export function logOriginFrom(scope: Construct): string {
  const origin = scope.node.tryGetContext(DEFAULT_ORIGIN_CONTEXT) as unknown;
  if (typeof origin === "string" && origin.trim() !== "") return origin;
  throw new Error(
    `CDK context "${DEFAULT_ORIGIN_CONTEXT}" is required: the transparency log's origin, in every ` +
      "signed checkpoint and permanent once published. Give the same value on every deploy, " +
      `best kept in cdk.json's "context" ({ "${DEFAULT_ORIGIN_CONTEXT}": "archive.example.org/incident-ledger" }) ` +
      `or passed as \`-c ${DEFAULT_ORIGIN_CONTEXT}=archive.example.org/incident-ledger\` ` +
      "(docs/how-to/deploy-to-aws.md).",
  );
}

export interface TransparencyLogProps {
  readonly eventsTable: dynamodb.ITable;
  readonly claimsTable: dynamodb.ITable;
  readonly viewsTable: dynamodb.ITable;
  /** The data function (functions/lambda/data.ts): it reads the log and stores releases, and may read the public key. */
  readonly reader: LedgerFunction;
  /** Where stream records the sequencer gave up on go (the stack's failure queue). */
  readonly failureQueue: sqs.IQueue;
  /** The events table still has the unsharded commit-time index: the catch-up reads it too. */
  readonly legacyCommitIndex?: boolean;
}

/**
 * The transparency log in AWS: its table, its Ed25519 signing key in KMS, and the sequencer
 * Lambda (fed by the events table's stream, a second consumer beside the projector, and by a
 * schedule), which is the only principal that may sign with the key.
 *
 * Context: `logOrigin` (the log's origin and key name; required, and the same on every deploy:
 * an origin is permanent once published, see logOriginFrom), `logWitnesses`
 * (LEDGER_WITNESSES: `<vkey> <url>` entries separated by `;`), `logTsaUrl` (LEDGER_TSA_URL: an
 * RFC 3161 time-stamping authority asked for a token over the newest checkpoint each minute).
 */
export class TransparencyLog extends Construct {
  readonly table: dynamodb.Table;
  readonly signingKey: kms.Key;
  readonly sequencer: LedgerFunction;
  private readonly origin: string;
  /** The RFC 3161 authority's URL, if one is configured. */
  readonly tsaUrl: string | undefined;

  constructor(scope: Construct, id: string, props: TransparencyLogProps) {
    super(scope, id);
    const origin = logOriginFrom(this);
    const witnesses = (this.node.tryGetContext("logWitnesses") as string | undefined) ?? "";
    this.origin = origin;
    this.tsaUrl = (this.node.tryGetContext("logTsaUrl") as string | undefined) || undefined;

    // ── Table: leaves, tiles, checkpoints, releases (functions/log/log-store.ts) ────────────
    this.table = new DurableTable(this, "Table", {
      partitionKey: { name: LOG_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LOG_KEYS.sortKey, type: dynamodb.AttributeType.NUMBER },
    });

    // ── Key: Ed25519, never leaves KMS. Its policy names who may sign; IAM cannot widen it ──
    this.signingKey = new kms.Key(this, "SigningKey", {
      description: `incident-ledger transparency log checkpoint key (${origin})`,
      keySpec: kms.KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      // Losing the key ends the log's identity: it stays when the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
      policy: new iam.PolicyDocument({
        statements: [
          // The account administers the key (and may read its public key) but cannot sign:
          // no kms:Sign here, so no IAM policy in the account can grant it; and no
          // kms:CreateGrant, since a grant would hand out kms:Sign beside any IAM policy.
          new iam.PolicyStatement({
            sid: "AccountAdministersButDoesNotSign",
            principals: [new iam.AccountRootPrincipal()],
            actions: [...SIGNING_KEY_ADMIN_ACTIONS],
            resources: ["*"],
          }),
        ],
      }),
    });

    // ── Sequencer: the one function that signs ─────────────────────────────────────────────
    this.sequencer = new LedgerFunction(this, "Sequencer", {
      entry: "functions/lambda/log-sequencer.ts",
      description: "incident-ledger transparency log sequencer and checkpoint signer",
      environment: {
        EVENTS_TABLE: props.eventsTable.tableName,
        CLAIMS_TABLE: props.claimsTable.tableName,
        VIEWS_TABLE: props.viewsTable.tableName,
        LOG_TABLE: this.table.tableName,
        LOG_KEY_ID: this.signingKey.keyArn,
        LEDGER_LOG_ORIGIN: origin,
        ...(witnesses ? { LEDGER_WITNESSES: witnesses } : {}),
        ...(this.tsaUrl ? { LEDGER_TSA_URL: this.tsaUrl } : {}),
        ...(props.legacyCommitIndex ? { LEGACY_COMMIT_INDEX: COMMIT_TIME_INDEX.name } : {}),
      },
      timeout: Duration.minutes(1),
      memorySize: 512,
    });
    this.signingKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "OnlyTheSequencerSigns",
        principals: [this.sequencer.role],
        actions: ["kms:Sign"],
        resources: ["*"],
        // Pure Ed25519 only: never Ed25519ph, never anything a future key spec might allow.
        conditions: { StringEquals: { "kms:SigningAlgorithm": KMS_SIGNING_ALGORITHM } },
      }),
    );
    // An explicit deny outranks every allow (an IAM policy, a grant, a later key-policy
    // statement that forgets this one): no principal but the sequencer's role signs or creates
    // a grant. aws:PrincipalArn is the role's ARN for any of its sessions.
    this.signingKey.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "NobodyElseSignsOrGrants",
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ["kms:Sign", "kms:CreateGrant"],
        resources: ["*"],
        conditions: { ArnNotEquals: { "aws:PrincipalArn": this.sequencer.role.roleArn } },
      }),
    );
    this.sequencer.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["kms:GetPublicKey"],
        resources: [this.signingKey.keyArn],
      }),
    );
    // It reads commits and the incident listing, and writes only the log.
    grantTableActions(
      this.sequencer.role,
      props.eventsTable,
      ["dynamodb:GetItem", "dynamodb:Query"],
      [COMMIT_SHARD_INDEX.name, ...(props.legacyCommitIndex ? [COMMIT_TIME_INDEX.name] : [])],
    );
    grantTableActions(this.sequencer.role, this.table, [
      "dynamodb:GetItem",
      "dynamodb:Query",
      "dynamodb:PutItem",
      "dynamodb:UpdateItem",
    ]);
    Validations.of(this.sequencer.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "X-Ray's PutTraceSegments/PutTelemetryRecords and DynamoDB's ListStreams (for the " +
        "sequencer's event source) have no resource-level permissions; every DynamoDB data " +
        "action is granted on named tables and indexes only.",
    });

    // Fed like the projector: every inserted commit, at least once, in batches.
    this.sequencer.function.addEventSource(
      new DynamoEventSource(props.eventsTable as dynamodb.Table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: LOG_SEQUENCER_STREAM.batchSize,
        maxBatchingWindow: LOG_SEQUENCER_STREAM.maxBatchingWindow,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: LOG_SEQUENCER_STREAM.retryAttempts,
        maxRecordAge: LOG_SEQUENCER_STREAM.maxRecordAge,
        onFailure: new SqsDlq(props.failureQueue),
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual("INSERT"),
            dynamodb: { NewImage: { itemType: { S: lambda.FilterRule.isEqual(COMMIT_ITEM_TYPE) } } },
          }),
        ],
      }),
    );
    // And on a schedule: a pass over every incident, then a checkpoint.
    new events.Rule(this, "CatchUp", {
      description: "incident-ledger: sequence anything the stream missed, and sign",
      schedule: events.Schedule.rate(LOG_CATCH_UP),
      targets: [new targets.LambdaFunction(this.sequencer.function, { retryAttempts: 2 })],
    });
    // Trusted time: a step a minute, apart from the stream's passes, so a slow TSA holds no
    // batch back; the store's lease keeps it to one request a minute (timestamp-keeper.ts).
    if (this.tsaUrl) {
      new events.Rule(this, "TimestampCheckpoints", {
        description: "incident-ledger: an RFC 3161 token over the newest checkpoint (LEDGER_TSA_URL)",
        schedule: events.Schedule.rate(LOG_TIMESTAMP_SCHEDULE),
        targets: [
          new targets.LambdaFunction(this.sequencer.function, {
            event: events.RuleTargetInput.fromObject(TIMESTAMP_TICK),
            retryAttempts: 0,
          }),
        ],
      });
    }

    // ── The data function reads the log and its public key, and stores releases (pk `release`, `release#…` only) ──
    const reader = props.reader;
    this.grantRead(reader);
    reader.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["dynamodb:PutItem"],
        resources: [this.table.tableArn],
        // It may add releases (numbered under `release`, and each name's copy under
        // `release#<name>`), never a leaf, tile or checkpoint.
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["release", "release#*"] } },
      }),
    );
  }

  /** A function that reads the log (leaves, checkpoints, tiles) and its public key, never signs. */
  grantRead(fn: LedgerFunction): void {
    fn.function.addEnvironment("LOG_TABLE", this.table.tableName);
    fn.function.addEnvironment("LOG_KEY_ID", this.signingKey.keyArn);
    fn.function.addEnvironment("LEDGER_LOG_ORIGIN", this.origin);
    grantTableActions(fn.role, this.table, ["dynamodb:GetItem", "dynamodb:Query"]);
    fn.role.addToPolicy(
      new iam.PolicyStatement({ actions: ["kms:GetPublicKey"], resources: [this.signingKey.keyArn] }),
    );
  }

  /**
   * The sequencer's alarms, on the stack's alarm action: it threw (a stream batch or the schedule
   * failed), its stream mapping fell behind, events wait for a signed checkpoint (the
   * sequencer's own EMF metrics: functions/log/log-metrics.ts), or it stopped running at all.
   */
  /**
   * Tells `topic` at once when anyone changes the signing key's policy, grants its use, disables
   * it or schedules its deletion: the key policy lets the account administer the key (KMS
   * requires that), and rewriting it is the one way left to take the right to sign. The calls
   * reach EventBridge as CloudTrail management events (an account trail records them).
   */
  watchSigningKey(topic: sns.ITopic): events.Rule {
    return new events.Rule(this, "SigningKeyChangedRule", {
      description:
        "The log's signing key had its policy or grants changed, or was disabled or scheduled for deletion.",
      eventPattern: {
        source: ["aws.kms"],
        detailType: ["AWS API Call via CloudTrail"],
        detail: {
          eventSource: ["kms.amazonaws.com"],
          eventName: [...SIGNING_KEY_WATCHED_CALLS],
          resources: { ARN: [this.signingKey.keyArn] },
        },
      },
      targets: [new targets.SnsTopic(topic)],
    });
  }

  addAlarms(action: cloudwatch.IAlarmAction): cloudwatch.Alarm[] {
    const fiveMinutes = Duration.minutes(5);
    const above = (
      id: string,
      description: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      evaluationPeriods = 1,
    ) => {
      const alarm = new cloudwatch.Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      return alarm;
    };
    const health = (name: string) =>
      new cloudwatch.Metric({
        namespace: LOG_METRICS.namespace,
        metricName: name,
        dimensionsMap: { [LOG_METRICS.dimension]: this.origin },
        period: fiveMinutes,
        statistic: cloudwatch.Stats.MAXIMUM,
      });
    // Its schedule invokes it every LOG_CATCH_UP: none in two periods means the schedule or the
    // function is gone, disabled or throttled, and then no metric above has anything to report.
    const heartbeat = new cloudwatch.Alarm(this, "SequencerHeartbeatAlarm", {
      alarmDescription: `The log sequencer was not invoked for ${LOG_HEARTBEAT.toMinutes()} minutes (its schedule runs every ${LOG_CATCH_UP.toMinutes()} minutes): no checkpoint is being signed.`,
      metric: this.sequencer.function.metricInvocations({
        period: LOG_HEARTBEAT,
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    });
    heartbeat.addAlarmAction(action);
    return [
      heartbeat,
      above(
        "SequencerErrorsAlarm",
        "The log sequencer threw: a schedule run or a whole stream batch failed; checkpoints may not advance.",
        this.sequencer.function.metricErrors({ period: fiveMinutes, statistic: cloudwatch.Stats.SUM }),
        0,
      ),
      above(
        "SequencerIteratorAgeAlarm",
        "The log sequencer's stream mapping is more than 5 minutes behind the events table.",
        this.sequencer.function.metric("IteratorAge", {
          period: fiveMinutes,
          statistic: cloudwatch.Stats.MAXIMUM,
        }),
        fiveMinutes.toMilliseconds(),
      ),
      above(
        "LeavesBehindAlarm",
        "Sequencer runs kept ending with stored events in no signed checkpoint for 10 minutes (every retry failed).",
        health(LOG_METRICS.leavesBehind),
        0,
        // One failed run that a retry repairs is not news; the Errors alarm sees thrown runs at once.
        2,
      ),
      above(
        "CheckpointDelayAlarm",
        `Stored events waited more than ${LOG_CHECKPOINT_DELAY_ALARM.toMinutes()} minutes for a signed checkpoint: the checkpoint stopped advancing, or the stream missed them until the schedule's catch-up.`,
        health(LOG_METRICS.checkpointDelay),
        LOG_CHECKPOINT_DELAY_ALARM.toSeconds(),
      ),
      ...(this.tsaUrl
        ? [
            above(
              "TimestampDelayAlarm",
              `The newest checkpoint has waited more than ${LOG_TIMESTAMP_DELAY_ALARM.toMinutes()} minutes for an RFC 3161 token: the TSA (${this.tsaUrl}) is down, slow or refusing.`,
              health(LOG_METRICS.timestampDelay),
              LOG_TIMESTAMP_DELAY_ALARM.toSeconds(),
            ),
          ]
        : []),
    ];
  }
}
