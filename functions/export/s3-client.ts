import { S3Client } from "@aws-sdk/client-s3";

/**
 * The exports bucket's client. In AWS it uses the Lambda's role; in tests `S3_ENDPOINT` points
 * it at a local S3 server (s3rver), addressed by path since `<bucket>.127.0.0.1` resolves nowhere.
 * Credentials come from the usual chain either way, so a local server checks real signatures.
 */
export function createS3Client(endpoint = process.env.S3_ENDPOINT): S3Client {
  if (!endpoint) return new S3Client({});
  return new S3Client({ endpoint, forcePathStyle: true, region: process.env.AWS_REGION ?? "local" });
}

/** A missing object: HeadObject has no body, so S3 says it with the status alone. */
export function isMissingObject(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return e?.name === "NotFound" || e?.name === "NoSuchKey" || e?.$metadata?.httpStatusCode === 404;
}
