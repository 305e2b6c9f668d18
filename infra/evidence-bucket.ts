import { Duration, RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import { type HttpApi, HttpMethod, HttpNoneAuthorizer, type HttpRoute } from "aws-cdk-lib/aws-apigatewayv2";
import type { HttpJwtAuthorizer } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import type { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import * as cloudwatch from "aws-cdk-lib/aws-cloudwatch";
import * as iam from "aws-cdk-lib/aws-iam";
import * as logs from "aws-cdk-lib/aws-logs";
import * as s3 from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { EVIDENCE_PREFIXES } from "../functions/evidence/s3-blob-store.js";
import type { LedgerFunction } from "./ledger-function.js";
import type { WriterIdentity } from "./writers.js";

/** The write routes of evidence (a writer's JWT) and its public read routes. */
export const EVIDENCE_WRITE_PATHS = ["/evidence", "/evidence/uploads"] as const;
export const EVIDENCE_GET_PATH = "/evidence/{sha256}";
export const BUNDLE_GET_PATH = "/incidents/{incidentId}/events/{eventId}/bundle";
/** Restricted reads in five minutes past which the alarm sounds. */
export const RESTRICTED_READS_ALARM = 2000;
/** The metric the restricted-read log lines count into. */
export const RESTRICTED_READS_METRIC = {
  namespace: "incident-ledger",
  name: "RestrictedReads",
} as const;
/**
 * The `audit` field of the log lines that count: evidence bytes (functions/evidence) and an
 * event's restricted disclosures (functions/people/disclosure-reader.ts).
 */
export const RESTRICTED_READ_AUDITS = ["restricted-evidence-read", "restricted-disclosure-read"] as const;

/**
 * The evidence bytes in AWS (functions/evidence/s3-blob-store.ts): one private bucket, S3-managed
 * encryption, TLS only, versioned (an overwrite or a delete keeps the earlier version), every
 * public access blocked. No Object Lock: erasure of images of people must stay possible, by an
 * operator deleting every version. The writer Lambda puts; the readers get.
 */
export class EvidenceBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, "Bucket", {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      objectLockEnabled: false,
      // Kept on `cdk destroy`, like the tables: captures in the chain name these bytes.
      removalPolicy: RemovalPolicy.RETAIN,
      // Request metrics, for the 5xx alarm (addAlarms): billed as custom CloudWatch metrics.
      metrics: [{ id: "EntireBucket" }],
      lifecycleRules: [
        { id: "abort-incomplete-uploads", abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // A streamed POST's bytes before their hash is known: copied to blobs/, then deleted;
        // what a crash leaves is gone in a day. The bucket is versioned and the code deletes
        // without a version id, so each delete leaves the bytes as a noncurrent version behind a
        // delete marker: those versions go a day later too.
        {
          id: "expire-incoming",
          prefix: EVIDENCE_PREFIXES.incoming,
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
        // …and then the delete markers left with no version behind them (S3 takes this in a rule
        // of its own: not beside an expiration in days).
        {
          id: "expire-incoming-delete-markers",
          prefix: EVIDENCE_PREFIXES.incoming,
          expiredObjectDeleteMarker: true,
        },
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "Every read is a presigned URL the API Lambda signs after its own check, and it logs each " +
        "restricted read (who, what, when) to its log group: that is the access record.",
    });
  }

  private objects(prefix: string): string {
    return this.bucket.arnForObjects(`${prefix}*`);
  }

  /**
   * S3 answers a read of a missing key with 403 unless the reader may list the bucket, and the
   * code asks "is it held?" by reading (a new hash, or bytes no restricted capture marked):
   * ListBucket, but only of the keys under `prefixes` (S3 checks it with the key as s3:prefix),
   * so a missing object is the 404 the code expects.
   */
  private grantMissingAsNotFound(fn: LedgerFunction, prefixes: readonly string[]): void {
    fn.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["s3:ListBucket"],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { "s3:prefix": prefixes.map((p) => `${p}*`) } },
      }),
    );
  }

  /**
   * The writer (the API Lambda): puts bytes (presigned PUTs carry its rights) and access marks,
   * reads them back (HeadObject before an append), and streams a POST through incoming/.
   */
  grantWrite(fn: LedgerFunction): void {
    fn.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["s3:PutObject", "s3:GetObject"],
        resources: [this.objects(EVIDENCE_PREFIXES.blobs), this.objects(EVIDENCE_PREFIXES.access)],
      }),
    );
    fn.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["s3:PutObject", "s3:GetObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
        resources: [this.objects(EVIDENCE_PREFIXES.incoming)],
      }),
    );
    this.grantMissingAsNotFound(fn, [EVIDENCE_PREFIXES.blobs, EVIDENCE_PREFIXES.access]);
    this.environment(fn);
    this.acknowledge(fn.role);
  }

  /** A reader (the data Lambda's bundles): gets bytes and access marks, nothing else. */
  grantRead(fn: LedgerFunction): void {
    fn.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["s3:GetObject"],
        resources: [this.objects(EVIDENCE_PREFIXES.blobs), this.objects(EVIDENCE_PREFIXES.access)],
      }),
    );
    this.grantMissingAsNotFound(fn, [EVIDENCE_PREFIXES.blobs, EVIDENCE_PREFIXES.access]);
    this.environment(fn);
    this.acknowledge(fn.role);
  }

  /**
   * The routes: uploads with a writer's JWT; the bytes and the bundles public, restricted
   * ones checked in the Lambda against the same issuer (no authorizer runs on GETs).
   */
  addRoutes(o: {
    httpApi: HttpApi;
    api: HttpLambdaIntegration;
    data: HttpLambdaIntegration;
    writerAuthorizer: HttpJwtAuthorizer;
    writers: WriterIdentity;
    readers: readonly LedgerFunction[];
  }): void {
    for (const path of EVIDENCE_WRITE_PATHS)
      o.httpApi.addRoutes({
        path,
        methods: [HttpMethod.POST],
        integration: o.api,
        authorizer: o.writerAuthorizer,
      });
    const reads: HttpRoute[] = [
      ...o.httpApi.addRoutes({
        path: EVIDENCE_GET_PATH,
        methods: [HttpMethod.GET],
        integration: o.api,
        authorizer: new HttpNoneAuthorizer(),
      }),
      ...o.httpApi.addRoutes({
        path: BUNDLE_GET_PATH,
        methods: [HttpMethod.GET],
        integration: o.data,
        authorizer: new HttpNoneAuthorizer(),
      }),
    ];
    for (const route of reads)
      Validations.of(route).acknowledge({
        id: "AwsSolutions-APIG4",
        reason:
          "Public evidence is for anyone to check; restricted evidence is refused in the Lambda " +
          "unless a bearer JWT of the writers' issuer carries the restricted-reader group.",
      });
    for (const fn of o.readers) {
      fn.function.addEnvironment("JWT_ISSUER", o.writers.issuer);
      fn.function.addEnvironment("JWT_AUDIENCE", o.writers.audience.join(","));
    }
  }

  /**
   * Restricted reads (evidence bytes, and victims' sealed values), counted from the audit log
   * lines of the functions that serve them; and 5xx.
   */
  addAlarms(action: cloudwatch.IAlarmAction, servers: readonly LedgerFunction[]): cloudwatch.Alarm[] {
    for (const [i, fn] of servers.entries()) {
      new logs.MetricFilter(this, `RestrictedReads${i}`, {
        logGroup: fn.logGroup,
        filterPattern: logs.FilterPattern.any(
          ...RESTRICTED_READ_AUDITS.map((audit) => logs.FilterPattern.stringValue("$.audit", "=", audit)),
        ),
        metricNamespace: RESTRICTED_READS_METRIC.namespace,
        metricName: RESTRICTED_READS_METRIC.name,
        metricValue: "1",
        defaultValue: 0,
      });
    }
    const fiveMinutes = Duration.minutes(5);
    const serverErrors = new cloudwatch.Alarm(this, "ServerErrorsAlarm", {
      alarmDescription: "The evidence bucket answered 5xx: uploads or downloads of evidence are failing.",
      metric: new cloudwatch.Metric({
        namespace: "AWS/S3",
        metricName: "5xxErrors",
        dimensionsMap: { BucketName: this.bucket.bucketName, FilterId: "EntireBucket" },
        period: fiveMinutes,
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // Many restricted reads in a short time: a reader's token used to copy what it may see. A
    // disclosure read is counted an event at a time, and one incident page opens up to 400
    // events' (functions/people/private-speakers.ts): the bar is a few pages' worth.
    const restrictedReads = new cloudwatch.Alarm(this, "RestrictedReadsAlarm", {
      alarmDescription: `Over ${RESTRICTED_READS_ALARM} restricted reads (evidence bytes, or one event's restricted disclosures) in five minutes: check who reads (the audit lines).`,
      metric: new cloudwatch.Metric({
        namespace: RESTRICTED_READS_METRIC.namespace,
        metricName: RESTRICTED_READS_METRIC.name,
        period: fiveMinutes,
        statistic: cloudwatch.Stats.SUM,
      }),
      threshold: RESTRICTED_READS_ALARM,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [serverErrors, restrictedReads]) alarm.addAlarmAction(action);
    return [serverErrors, restrictedReads];
  }

  private environment(fn: LedgerFunction): void {
    fn.function.addEnvironment("EVIDENCE_BUCKET", this.bucket.bucketName);
  }

  private acknowledge(role: iam.Role): void {
    const bucketId = Stack.of(this.bucket).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
    for (const prefix of Object.values(EVIDENCE_PREFIXES)) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}*]`,
        reason: "Evidence is one object per SHA-256: the grant is its prefix, not the bucket.",
      });
    }
  }
}
