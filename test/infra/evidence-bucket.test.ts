import type { CfnElement } from "aws-cdk-lib";
import type { Template } from "aws-cdk-lib/assertions";
import type { IConstruct } from "constructs";
import { beforeAll, describe, expect, it } from "vitest";
import type { LedgerStack } from "../../infra/ledger-stack.js";
import { actionsByResource, type Json, synthLedger } from "./synth.js";

let stack: LedgerStack;
let template: Template;
let resources: Record<string, Json>;
const id = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const bucketId = () => id(stack.evidence.bucket);
/** A role's grants on the evidence bucket's objects, by prefix. */
const evidenceGrants = (role: IConstruct): Record<string, string[]> =>
  Object.fromEntries(
    [...actionsByResource(template, id(role)).entries()]
      .filter(([resource]) => resource.startsWith(bucketId()))
      .map(([resource, actions]) => [resource.slice(bucketId().length), [...actions].sort()]),
  );

beforeAll(() => {
  ({ stack, template } = synthLedger());
  resources = template.toJSON().Resources;
});

describe("the evidence bucket", () => {
  it("is private, encrypted, versioned, TLS-only, kept on destroy, and has no Object Lock", () => {
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
      VersioningConfiguration: { Status: "Enabled" },
      OwnershipControls: { Rules: [{ ObjectOwnership: "BucketOwnerEnforced" }] },
    });
    // Erasure of images of people must stay possible: no Object Lock, compliance mode or other.
    expect(bucket.Properties.ObjectLockEnabled).toBeFalsy();
    expect(bucket.Properties.ObjectLockConfiguration).toBeUndefined();
    expect(bucket.DeletionPolicy).toBe("Retain");
    const rules = bucket.Properties.LifecycleConfiguration.Rules as Json[];
    // A streamed POST's staging copy: gone in a day, and (versioned bucket, deletes without a
    // version id) its noncurrent version a day after that, then the delete marker left alone.
    expect(rules).toContainEqual(
      expect.objectContaining({
        Prefix: "incoming/",
        ExpirationInDays: 1,
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
        Status: "Enabled",
      }),
    );
    expect(rules).toContainEqual(
      expect.objectContaining({ Prefix: "incoming/", ExpiredObjectDeleteMarker: true, Status: "Enabled" }),
    );
    // Nothing but incoming/ expires: blobs/ and access/ are evidence.
    for (const rule of rules)
      if (rule.ExpirationInDays || rule.NoncurrentVersionExpiration || rule.ExpiredObjectDeleteMarker)
        expect(rule.Prefix).toBe("incoming/");
    // Request metrics: what the 5xx alarm reads (FilterId EntireBucket), nothing more.
    expect(bucket.Properties.MetricsConfigurations).toEqual([{ Id: "EntireBucket" }]);
    const policy = (Object.values(template.findResources("AWS::S3::BucketPolicy")) as Json[]).find(
      (p) => p.Properties.Bucket.Ref === bucketId(),
    );
    expect(policy?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({
        Effect: "Deny",
        Action: "s3:*",
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      }),
    );
  });

  it("lets the API (and the desk's upload form, on the pages) put and read evidence, delete only its own incoming copies, and the data Lambda only read", () => {
    // The bucket itself: ListBucket, so that a missing key is 404 and not S3's 403 (below).
    const writer = {
      "": ["s3:ListBucket"],
      "/blobs/*": ["s3:GetObject", "s3:PutObject"],
      "/access/*": ["s3:GetObject", "s3:PutObject"],
      "/incoming/*": ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:GetObject", "s3:PutObject"],
    };
    expect(evidenceGrants(stack.api.role)).toEqual(writer);
    expect(evidenceGrants(stack.pages.role)).toEqual(writer);
    expect(evidenceGrants(stack.data.role)).toEqual({
      "": ["s3:ListBucket"],
      "/blobs/*": ["s3:GetObject"],
      "/access/*": ["s3:GetObject"],
    });
    // ListBucket of the keys the code reads, no others: S3 checks it with the key as s3:prefix.
    for (const role of [stack.api.role, stack.pages.role, stack.data.role]) {
      const lists = (Object.values(template.findResources("AWS::IAM::Policy")) as Json[])
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(id(role)))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
        .filter((st) => [st.Action].flat().includes("s3:ListBucket"))
        .filter((st) => JSON.stringify(st.Resource).includes(bucketId()));
      expect(lists).toEqual([
        expect.objectContaining({
          Resource: { "Fn::GetAtt": [bucketId(), "Arn"] },
          Condition: { StringLike: { "s3:prefix": ["blobs/*", "access/*"] } },
        }),
      ]);
    }
    expect(evidenceGrants(stack.projector.role)).toEqual({});
    for (const fn of [stack.api, stack.data]) {
      expect(resources[id(fn.function)].Properties.Environment.Variables).toMatchObject({
        EVIDENCE_BUCKET: { Ref: bucketId() },
        JWT_ISSUER: expect.anything(),
        JWT_AUDIENCE: expect.anything(),
      });
    }
  });

  it("routes uploads through the writers' authorizer and the reads without one", () => {
    const routes = Object.values(template.findResources("AWS::ApiGatewayV2::Route")) as Json[];
    const route = (key: string) => routes.find((r) => r.Properties.RouteKey === key)?.Properties;
    for (const key of ["POST /evidence", "POST /evidence/uploads"])
      expect(route(key)?.AuthorizationType).toBe("JWT");
    for (const key of ["GET /evidence/{sha256}", "GET /incidents/{incidentId}/events/{eventId}/bundle"])
      expect(route(key)?.AuthorizationType).toBe("NONE");
  });

  it("alarms on the bucket's 5xx and on a burst of restricted reads (evidence bytes and disclosures), counted from the audit lines", () => {
    const alarms = Object.values(template.findResources("AWS::CloudWatch::Alarm")) as Json[];
    const serverErrors = alarms.find(
      (a) => a.Properties.MetricName === "5xxErrors" && a.Properties.Namespace === "AWS/S3",
    );
    expect(serverErrors?.Properties.Dimensions).toContainEqual({ Name: "FilterId", Value: "EntireBucket" });
    expect(
      alarms.some(
        (a) => a.Properties.MetricName === "RestrictedReads" && a.Properties.Namespace === "incident-ledger",
      ),
    ).toBe(true);
    const filters = Object.values(template.findResources("AWS::Logs::MetricFilter")) as Json[];
    // Every function that serves restricted bytes or values is counted: the API, the bundles, the
    // desk and pages; a read of either kind counts.
    const counted = filters.filter(
      (f) =>
        f.Properties.FilterPattern ===
          '{ ($.audit = "restricted-evidence-read") || ($.audit = "restricted-disclosure-read") }' &&
        f.Properties.MetricTransformations[0].MetricName === "RestrictedReads",
    );
    expect(counted).toHaveLength(filters.length);
    const groups = counted.map((f) => JSON.stringify(f.Properties.LogGroupName));
    for (const fn of ["Api", "Data", "Pages"])
      expect(
        groups.some((g) => g.includes(fn)),
        fn,
      ).toBe(true);
  });
});
