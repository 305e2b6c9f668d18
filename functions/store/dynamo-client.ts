import { DynamoDBClient } from "@aws-sdk/client-dynamodb";

/**
 * One client for both worlds: in AWS it uses the Lambda's role; locally and in tests
 * `DYNAMODB_ENDPOINT` points it at dynalite, which accepts any credentials.
 */
export function createDynamoClient(endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBClient {
  if (!endpoint) return new DynamoDBClient({});
  return new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION ?? "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    maxAttempts: 3,
    ...(isLoopback(endpoint) ? { signer: LOOPBACK_SIGNER } : {}),
  });
}

/**
 * dynalite checks that a request carries a well-formed SigV4 Authorization header, never the
 * signature (its credentials are made up). On loopback, computing one (a SHA-256 of the body, an
 * HMAC chain, the canonical request) was a sixth to a quarter of a store call's CPU, client and
 * server in one process (bench/profile/sdk-signing.ts); the archive makes several a request. Any
 * other endpoint is signed as the SDK signs.
 */
const LOOPBACK_SIGNER = {
  async sign<T extends { headers: Record<string, string> }>(request: T): Promise<T> {
    const date = new Date().toISOString().replace(/[-:]|\.\d{3}/g, "");
    request.headers["x-amz-date"] = date;
    request.headers.authorization =
      `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/local/dynamodb/aws4_request, ` +
      "SignedHeaders=host;x-amz-date, Signature=unsigned-on-loopback";
    return request;
  },
};

function isLoopback(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname;
    return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

/** Castore's lesson: recognise the failed condition by name, not by class identity across bundles. */
export function isConditionFailed(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === "ConditionalCheckFailedException";
}
