import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSecretString } from "../../functions/http/desk/secret-value.js";
import { saveEnv } from "../support/saved-env.js";

/**
 * The pages Lambda's one Secrets Manager call (the SDK's client), against a stand-in endpoint: the JSON 1.1
 * request GetSecretValue is, SigV4-signed with the credentials of the environment (as the
 * Lambda runtime provides them), and its SecretString read back; a refusal is an error.
 */
const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:desk-session-key-AbCdEf";
let seen: { headers: Record<string, string>; body: string }[] = [];
let server: ReturnType<typeof serve>;
let endpoint: string;
const restoreEnv = saveEnv();

beforeAll(async () => {
  const app = new Hono();
  app.post("/", async (c) => {
    seen.push({ headers: Object.fromEntries(c.req.raw.headers), body: await c.req.text() });
    const { SecretId } = JSON.parse(seen.at(-1)?.body ?? "{}");
    if (SecretId !== ARN) return c.json({ __type: "ResourceNotFoundException" }, 400);
    return c.json({ ARN, Name: "desk-session-key", SecretString: "k".repeat(64) });
  });
  server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
    AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
    AWS_SESSION_TOKEN: "session-token-example",
  });
});

afterAll(async () => {
  restoreEnv();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("the session key from Secrets Manager", () => {
  it("asks GetSecretValue for the secret, signed with the environment's credentials", async () => {
    seen = [];
    await expect(getSecretString(ARN, undefined, endpoint)).resolves.toBe("k".repeat(64));
    const [request] = seen;
    expect(request?.headers["x-amz-target"]).toBe("secretsmanager.GetSecretValue");
    expect(request?.headers["content-type"]).toBe("application/x-amz-json-1.1");
    expect(request?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$/,
    );
    expect(request?.headers["x-amz-security-token"]).toBe("session-token-example");
    expect(JSON.parse(request?.body ?? "")).toEqual({ SecretId: ARN });
  });

  it("fails when the service refuses, never answering an empty key", async () => {
    await expect(getSecretString(`${ARN}-other`, "eu-west-1", endpoint)).rejects.toThrow(/answered 400/);
  });
});
