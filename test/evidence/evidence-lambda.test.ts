import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from "aws-lambda";
import { handle } from "hono/aws-lambda";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3BlobStore } from "../../functions/evidence/s3-blob-store.js";
import { createApp } from "../../functions/http/app.js";
import { jwtBearer } from "../../functions/http/async-auth.js";
import { jwtAuthorizerClaims } from "../../functions/http/auth.js";
import { createLedgerCore } from "../../functions/ledger-core.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { httpApiEvent } from "../infra/lambda-events.js";
import { AP, opened, startArchive } from "../support/archive.js";
import { sha256Of } from "./evidence-kit.js";

/**
 * The API Lambda's evidence routes as AWS runs them: real HTTP API events, the S3 store (s3rver),
 * restricted reads checked with a JWT against a JWKS (no authorizer runs on GETs), bytes served
 * through a short presigned redirect.
 */
let archive: LocalServer;
let s3server: S3rver;
let s3dir: string;
let jwks: Server;
let issuer: string;
let token: (groups: string[]) => Promise<string>;
let invoke: (
  event: APIGatewayProxyEventV2,
) => Promise<APIGatewayProxyResultV2 & { statusCode: number; headers: Record<string, string>; body: string }>;

beforeAll(async () => {
  archive = await startArchive();
  s3dir = mkdtempSync(join(tmpdir(), "ledger-s3rver-lambda-"));
  s3server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: "ev" }],
  });
  const { port } = await s3server.run();
  const s3 = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    region: "us-east-1",
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  });
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k", alg: "RS256" };
  jwks = createServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
  token = (groups) =>
    new SignJWT({ sub: "reader-1", email: "reader@example.org", "cognito:groups": groups })
      .setProtectedHeader({ alg: "RS256", kid: "k" })
      .setIssuer(issuer)
      .setAudience("app")
      .setExpirationTime("5m")
      .sign(privateKey);
  const core = createLedgerCore({
    db: createDynamoClient(archive.dynamoEndpoint),
    tables: archive.tables,
    evidence: {
      store: new S3BlobStore(s3, "ev"),
      log: silentLogger,
      readers: jwtBearer({ issuer, audience: ["app"], jwksUrl: `${issuer}/jwks` }),
    },
  });
  const handler = handle(createApp({ log: silentLogger, routes: [core.routes(jwtAuthorizerClaims())] }));
  invoke = (event) => handler(event as never, {} as Context) as never;
});
afterAll(async () => {
  await archive.close();
  await s3server.close();
  rmSync(s3dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => jwks.close(() => resolve()));
});

const writer = { sub: "w-1", email: "w@example.org", "cognito:groups": "[writer]" };

function rawPost(path: string, body: string, type: string): APIGatewayProxyEventV2 {
  const event = httpApiEvent({ method: "POST", route: path, path, claims: writer }) as APIGatewayProxyEventV2;
  return {
    ...event,
    body,
    headers: { ...event.headers, "content-type": type, "content-length": String(body.length) },
  };
}

describe("evidence in the API Lambda (S3, JWT readers)", () => {
  it("stores a POSTed blob in the bucket, and serves public bytes through a presigned redirect", async () => {
    const page = "<html>the page</html>";
    const stored = await invoke(rawPost("/evidence", page, "text/html"));
    expect(stored.statusCode).toBe(201);
    expect(JSON.parse(stored.body).sha256).toBe(sha256Of(page));
    const read = await invoke(
      httpApiEvent({
        method: "GET",
        route: "/evidence/{sha256}",
        path: `/evidence/${sha256Of(page)}`,
      }) as APIGatewayProxyEventV2,
    );
    expect(read.statusCode).toBe(307);
    const bytes = await fetch(read.headers.location as string);
    expect(bytes.headers.get("cache-control")).toBeNull();
    expect(await bytes.text()).toBe(page);
  });

  it("refuses restricted bytes without a restricted-reader's JWT (401/403), and redirects with one", async () => {
    const face = "<html>a face</html>";
    expect((await invoke(rawPost("/evidence", face, "text/html"))).statusCode).toBe(201);
    const open = httpApiEvent({
      method: "POST",
      route: "/incidents/{incidentId}/events",
      path: "/incidents/lambda-evidence/events",
      claims: writer,
      body: opened(),
    }) as APIGatewayProxyEventV2;
    expect((await invoke(open)).statusCode).toBe(201);
    const captureEvent = httpApiEvent({
      method: "POST",
      route: "/incidents/{incidentId}/events",
      path: "/incidents/lambda-evidence/events",
      claims: writer,
      body: {
        type: "EvidenceCaptured",
        source: AP,
        data: {
          sha256: sha256Of(face),
          size: face.length,
          mediaType: "text/html",
          kind: "image",
          access: "restricted",
        },
      },
    }) as APIGatewayProxyEventV2;
    expect((await invoke(captureEvent)).statusCode).toBe(201);
    const path = `/evidence/${sha256Of(face)}`;
    const get = (headers: Record<string, string> = {}) =>
      invoke(
        httpApiEvent({ method: "GET", route: "/evidence/{sha256}", path, headers }) as APIGatewayProxyEventV2,
      );
    expect((await get()).statusCode).toBe(401);
    expect((await get({ authorization: `Bearer ${await token(["writer"])}` })).statusCode).toBe(403);
    const allowed = await get({ authorization: `Bearer ${await token(["restricted-reader"])}` });
    expect(allowed.statusCode).toBe(307);
    expect(allowed.headers["cache-control"]).toBe("private, no-store");
    // The presigned GET has S3 answer so too: the bytes are for this reader's eyes, not a cache.
    const bytes = await fetch(allowed.headers.location as string);
    expect(bytes.headers.get("cache-control")).toBe("private, no-store");
    expect(await bytes.text()).toBe(face);
  });
});
