import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_BUILDER } from "../../infra/export-hand-off.js";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, type Json, synthLedger } from "./synth.js";

let stack: LedgerStack;
let template: Template;
let resources: Record<string, Json>;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const bucketId = () => id(stack.exportHandOff.bucket);
/** A role's grants but DynamoDB's, logs' and X-Ray's (the shared defaults other tests hold). */
const otherGrants = (role: IConstruct): Record<string, string[]> =>
  Object.fromEntries(
    [...actionsByResource(template, id(role)).entries()]
      // The evidence bucket's grants are held by test/infra/evidence-bucket.test.ts.
      .filter(([resource]) => !resource.startsWith(id(stack.evidence.bucket)))
      .map(
        ([resource, actions]) =>
          [resource, [...actions].filter((a) => !/^(dynamodb|logs|xray):/.test(a)).sort()] as const,
      )
      .filter(([, actions]) => actions.length > 0),
  );

beforeAll(() => {
  ({ stack, template } = synthLedger());
  resources = template.toJSON().Resources;
});

describe("the S3 hand-off: the exports bucket", () => {
  it("is private, encrypted, TLS-only, unversioned, and clears abandoned multipart uploads after a day", () => {
    const buckets = template.findResources("AWS::S3::Bucket");
    expect(Object.keys(buckets)).toContain(bucketId());
    const bucket = resources[bucketId()];
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
      LifecycleConfiguration: {
        Rules: [{ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: "Enabled" }],
      },
    });
    expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    // Kept on `cdk destroy`: a release's exports are cited.
    expect(bucket.DeletionPolicy).toBe("Retain");
    const [policy] = Object.values(template.findResources("AWS::S3::BucketPolicy")) as Json[];
    expect(policy.Properties.Bucket).toEqual({ Ref: bucketId() });
    expect(policy.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: "Deny",
        Action: "s3:*",
        Principal: { AWS: "*" },
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      }),
    );
  });
});

describe("the S3 hand-off: the builder", () => {
  it("runs up to 15 minutes, its concurrency capped and its async retries bounded, knowing the bucket", () => {
    const fn = resources[id(stack.exportHandOff.builder.function)].Properties;
    expect(fn.Timeout).toBe(900);
    expect(fn.MemorySize).toBe(EXPORT_BUILDER.memorySize);
    expect(fn.ReservedConcurrentExecutions).toBe(EXPORT_BUILDER.reservedConcurrency);
    expect(fn.Environment.Variables).toMatchObject({
      EXPORTS_BUCKET: { Ref: bucketId() },
      EVENTS_TABLE: { Ref: id(stack.eventsTable) },
      VIEWS_TABLE: { Ref: id(stack.viewsTable) },
      LOG_TABLE: { Ref: id(stack.transparencyLog.table) },
    });
    const configs = (
      Object.values(template.findResources("AWS::Lambda::EventInvokeConfig")) as Json[]
    ).filter((c) => c.Properties.FunctionName.Ref === id(stack.exportHandOff.builder.function));
    expect(configs.map((c) => c.Properties.MaximumRetryAttempts)).toEqual([EXPORT_BUILDER.retryAttempts]);
  });

  it("may read what an export reads, and only put (or abort) objects under exports/", () => {
    const grants = actionsByResource(template, id(stack.exportHandOff.builder.role));
    const dynamo = [...grants.entries()]
      .map(([r, actions]) => [r, [...actions].filter((a) => a.startsWith("dynamodb:")).sort()] as const)
      .filter(([, actions]) => actions.length > 0);
    expect(Object.fromEntries(dynamo)).toEqual({
      [id(stack.eventsTable)]: ["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"],
      [id(stack.viewsTable)]: ["dynamodb:BatchGetItem", "dynamodb:GetItem"],
      [id(stack.claimsTable)]: ["dynamodb:GetItem"],
      [id(stack.transparencyLog.table)]: ["dynamodb:GetItem", "dynamodb:Query"],
    });
    expect(otherGrants(stack.exportHandOff.builder.role)).toEqual({
      [`${bucketId()}/exports/*`]: ["s3:AbortMultipartUpload", "s3:PutObject"],
    });
  });
});

describe("the S3 hand-off: the data Lambda", () => {
  it("may read exports' objects (HeadObject, presigned GETs) and invoke the builder, nothing more", () => {
    const grants = otherGrants(stack.data.role);
    expect(grants).toMatchObject({
      // The bucket: ListBucket of the exports' keys only, so that an export not built is a 404.
      [bucketId()]: ["s3:ListBucket"],
      [`${bucketId()}/exports/*`]: ["s3:GetObject"],
      [id(stack.exportHandOff.builder.function)]: ["lambda:InvokeFunction"],
    });
    const s3OrLambda = Object.values(grants)
      .flat()
      .filter((a) => /^(s3|lambda):/.test(a));
    expect(s3OrLambda.sort()).toEqual(["lambda:InvokeFunction", "s3:GetObject", "s3:ListBucket"]);
    const list = (Object.values(template.findResources("AWS::IAM::Policy")) as Json[])
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(id(stack.data.role)))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
      .find((st) => st.Action === "s3:ListBucket" && JSON.stringify(st.Resource).includes(bucketId()));
    expect(list?.Condition).toEqual({ StringLike: { "s3:prefix": ["exports/*"] } });
    const env = resources[id(stack.data.function)].Properties.Environment.Variables;
    expect(env.EXPORTS_BUCKET).toEqual({ Ref: bucketId() });
    expect(env.EXPORT_BUILDER).toEqual({ Ref: id(stack.exportHandOff.builder.function) });
  });

  it("is the only role besides the builder with any S3 or Lambda-invoke grant (but on evidence, and the desk's release)", () => {
    const others = Object.keys(template.findResources("AWS::IAM::Role")).filter(
      (role) => role !== id(stack.data.role) && role !== id(stack.exportHandOff.builder.role),
    );
    // The desk's release form starts a release's builds as POST /releases does: the pages role
    // may invoke the builder, and nothing else of S3 or Lambda.
    const pagesBuilds = actionsByResource(template, id(stack.pages.role)).get(
      id(stack.exportHandOff.builder.function),
    );
    expect([...(pagesBuilds ?? [])]).toEqual(["lambda:InvokeFunction"]);
    for (const role of others) {
      const actions = [...actionsByResource(template, role).entries()]
        .filter(([resource]) => !resource.startsWith(id(stack.evidence.bucket)))
        .filter(
          ([resource]) =>
            !(role === id(stack.pages.role) && resource === id(stack.exportHandOff.builder.function)),
        )
        .flatMap(([, set]) => [...set]);
      expect(
        actions.filter((a) => /^(s3:|lambda:Invoke)/.test(a)),
        role,
      ).toEqual([]);
    }
    for (const fn of [stack.api, stack.pages, stack.exportStreaming.fn]) {
      expect(resources[id(fn.function)].Properties.Environment.Variables.EXPORTS_BUCKET).toBeUndefined();
    }
  });
});
