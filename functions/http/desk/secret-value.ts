import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { defaultProvider } from "@aws-sdk/credential-provider-node";
import { SignatureV4 } from "@smithy/signature-v4";

/**
 * One Secrets Manager `GetSecretValue`, signed with SigV4 by the SDK's own signer and credential
 * chain (both already in the bundle through the DynamoDB client): the session key is read at
 * cold start and never sits in the function's configuration. `AWS_ENDPOINT_URL_SECRETS_MANAGER`
 * (the SDK's own variable) points it elsewhere, as for any SDK client.
 */
export async function getSecretString(
  secretArn: string,
  region = regionOf(secretArn),
  endpoint = process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER ?? `https://secretsmanager.${region}.amazonaws.com`,
): Promise<string> {
  const url = new URL(endpoint);
  const host = url.host;
  const body = JSON.stringify({ SecretId: secretArn });
  const signer = new SignatureV4({
    service: "secretsmanager",
    region,
    credentials: defaultProvider(),
    sha256: NodeHash,
  });
  const signed = await signer.sign({
    method: "POST",
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: "/",
    headers: {
      host,
      "content-type": "application/x-amz-json-1.1",
      "x-amz-target": "secretsmanager.GetSecretValue",
    },
    body,
  });
  const answer = await fetch(new URL("/", url), { method: "POST", headers: signed.headers, body });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`Secrets Manager answered ${answer.status} for the session key`);
  const value = (JSON.parse(text) as { SecretString?: string }).SecretString;
  if (!value) throw new Error("the session key secret has no SecretString");
  return value;
}

const regionOf = (arn: string) => arn.split(":")[3] ?? process.env.AWS_REGION ?? "us-east-1";

/** The `Checksum` shape the signer takes, over node:crypto (SHA-256, or HMAC-SHA-256 with a key). */
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: Data) =>
  typeof data === "string"
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

class NodeHash {
  private hash: Hash | Hmac;
  private readonly secret: string | Uint8Array | undefined;
  constructor(secret?: Data) {
    this.secret = secret === undefined ? undefined : bytes(secret);
    this.hash = this.secret === undefined ? createHash("sha256") : createHmac("sha256", this.secret);
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.secret === undefined ? createHash("sha256") : createHmac("sha256", this.secret);
  }
}
