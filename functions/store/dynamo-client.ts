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
  });
}
