import { CfnOutput, Duration, Stack, Validations } from "aws-cdk-lib";
import * as iam from "aws-cdk-lib/aws-iam";
import * as s3 from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { EXPORT_OBJECT_PREFIX } from "../functions/export/export-files.js";
import { type ExportStreamingProps, grantExportReads } from "./export-streaming.js";
import { LedgerFunction } from "./ledger-function.js";

/** How the builder runs; the template tests hold the stack to it. */
export const EXPORT_BUILDER = {
  // Lambda's longest: one export file of one tree size a run.
  timeout: Duration.minutes(15),
  // As the streaming function: the CSV's sort runs, plus two 5 MB parts of the upload.
  memorySize: 1024,
  // A release starts two builds; a few releases at once queue (Lambda's async queue waits).
  reservedConcurrency: 4,
  // A build that failed twice is given up (its errors alarm); downloads still stream meanwhile.
  retryAttempts: 2,
} as const;

/** Incomplete multipart uploads (a build that died mid-way) are cleared after this. */
export const ABORT_INCOMPLETE_UPLOADS_AFTER = Duration.days(1);

/**
 * The S3 hand-off: exports of any size. A function URL streams at most 200 MB a response,
 * without Range, re-running the export each time; an export at a tree size is immutable, so
 * the builder writes it once into a private bucket (`exports/<treeSize>/<file>`, a multipart
 * upload streamed from the same Exporter), and the data Lambda redirects to a presigned GET of
 * the object when it exists. Releases start their builds (POST /releases).
 */
export class ExportHandOff extends Construct {
  readonly bucket: s3.Bucket;
  readonly builder: LedgerFunction;

  constructor(scope: Construct, id: string, props: ExportStreamingProps) {
    super(scope, id);
    // Private: objects are reached only through presigned URLs the data Lambda signs. Kept on
    // `cdk destroy` (the default) like the tables: a release's export is cited by its URL.
    this.bucket = new s3.Bucket(this, "Bucket", {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // Objects are immutable, and rebuildable from the log: versions would keep nothing new.
      versioned: false,
      lifecycleRules: [
        {
          id: "abort-incomplete-uploads",
          abortIncompleteMultipartUploadAfter: ABORT_INCOMPLETE_UPLOADS_AFTER,
        },
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "The bucket holds public evidence exports, each rebuildable from the log; downloads are " +
        "presigned by the data Lambda, whose API access log already records each request.",
    });

    this.builder = new LedgerFunction(this, "Builder", {
      entry: "functions/lambda/export-builder.ts",
      description: "incident-ledger export builder (one export of one tree size into the exports bucket)",
      environment: {
        ...props.environment,
        LOG_TABLE: props.logTable.tableName,
        EXPORTS_BUCKET: this.bucket.bucketName,
      },
      timeout: EXPORT_BUILDER.timeout,
      memorySize: EXPORT_BUILDER.memorySize,
      reservedConcurrentExecutions: EXPORT_BUILDER.reservedConcurrency,
    });
    this.builder.function.configureAsyncInvoke({ retryAttempts: EXPORT_BUILDER.retryAttempts });
    grantExportReads(this.builder.role, props);
    // Multipart uploads (create, upload part, complete) are all s3:PutObject; a failed one is aborted.
    this.builder.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["s3:PutObject", "s3:AbortMultipartUpload"],
        resources: [this.objectsArn()],
      }),
    );
    Validations.of(this.builder.role).acknowledge({
      id: "AwsSolutions-IAM5[Resource::*]",
      reason:
        "X-Ray's PutTraceSegments/PutTelemetryRecords have no resource-level permissions; every " +
        "DynamoDB action is granted on named tables only.",
    });
    acknowledgeExportObjects(this.builder.role, this.bucket);

    new CfnOutput(this, "BucketName", {
      value: this.bucket.bucketName,
      description: "Where exports are built once (exports/<treeSize>/<file>) and served by presigned GETs",
    });
  }

  /** The exports' objects only: nothing else in the bucket is anyone's to read or write. */
  objectsArn(): string {
    return this.bucket.arnForObjects(`${EXPORT_OBJECT_PREFIX}*`);
  }

  /**
   * What the data Lambda needs to serve built exports and start builds: GetObject on the
   * exports (HeadObject is allowed by it, and a presigned GET carries the signer's rights) and
   * the builder's invoke; its bucket and function names in its environment.
   */
  grantServe(fn: LedgerFunction): void {
    fn.role.addToPolicy(
      new iam.PolicyStatement({ actions: ["s3:GetObject"], resources: [this.objectsArn()] }),
    );
    // An export not built yet is a missing key: 404 (not S3's 403) only for a reader that may
    // list, here only the exports' keys (S3 checks the key as s3:prefix).
    fn.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["s3:ListBucket"],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { "s3:prefix": [`${EXPORT_OBJECT_PREFIX}*`] } },
      }),
    );
    fn.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ["lambda:InvokeFunction"],
        resources: [this.builder.function.functionArn],
      }),
    );
    fn.function.addEnvironment("EXPORTS_BUCKET", this.bucket.bucketName);
    fn.function.addEnvironment("EXPORT_BUILDER", this.builder.function.functionName);
    acknowledgeExportObjects(fn.role, this.bucket);
  }
}

function acknowledgeExportObjects(role: iam.Role, bucket: s3.Bucket): void {
  const bucketId = Stack.of(bucket).getLogicalId(bucket.node.defaultChild as s3.CfnBucket);
  Validations.of(role).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${EXPORT_OBJECT_PREFIX}*]`,
    reason:
      "Exports are one object per tree size and file: the grant is the exports/ prefix, not the bucket.",
  });
}
