import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";

/**
 * One Secrets Manager `GetSecretValue` through the SDK's own client (its credential chain, its
 * signing, its retries): the session key is read at cold start and never sits in the
 * function's configuration. `AWS_ENDPOINT_URL_SECRETS_MANAGER` (the SDK's own variable) points
 * it elsewhere, as for any SDK client; `endpoint` does the same for a test.
 */
export async function getSecretString(
  secretArn: string,
  region = regionOf(secretArn),
  endpoint?: string,
): Promise<string> {
  const client = new SecretsManagerClient({ region, ...(endpoint ? { endpoint } : {}), maxAttempts: 2 });
  try {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    if (!answer.SecretString) throw new Error("the session key secret has no SecretString");
    return answer.SecretString;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === undefined) throw error;
    // The service's own words may name the secret: the status and error name are enough here.
    throw new Error(`Secrets Manager answered ${status} (${(error as Error).name}) for the session key`);
  } finally {
    client.destroy();
  }
}

const regionOf = (arn: string) => arn.split(":")[3] ?? process.env.AWS_REGION ?? "us-east-1";
