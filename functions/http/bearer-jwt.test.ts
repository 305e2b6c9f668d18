import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

type KeyLike = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerJwt } from "./bearer-jwt.js";

// A real issuer's JWKS over real HTTP, and tokens signed with its key (or another).
let server: Server;
let issuer: string;
let key: KeyLike;
let other: KeyLike;
beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  key = pair.privateKey;
  other = (await generateKeyPair("RS256")).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const token = (claims: Record<string, unknown>, signWith = key, iss = issuer, aud = "client-1") =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "RS256", kid: "k1" })
    .setIssuer(iss)
    .setAudience(aud)
    .setSubject("user-1")
    .setExpirationTime("5m")
    .sign(signWith);

async function who(authorization?: string) {
  const app = new Hono();
  const auth = bearerJwt({ issuer, audience: "client-1" });
  app.get("/", async (c) => {
    const p = await auth(c);
    return c.json(p ? { name: p.name, roles: [...p.roles].sort() } : null);
  });
  return (await app.request("/", authorization ? { headers: { authorization } } : {})).json();
}

describe("bearerJwt: a restricted read verifies its token in the Lambda", () => {
  it("given a token of the issuer, then the caller holds the groups it names", async () => {
    const t = await token({ email: "rita@example.org", "cognito:groups": ["restricted-reader"] });
    expect(await who(`Bearer ${t}`)).toEqual({
      name: "rita@example.org (user-1)",
      roles: ["restricted-reader"],
    });
  });

  it("given no token, a token signed by another key, for another audience or issuer, then nobody", async () => {
    expect(await who()).toBeNull();
    expect(await who(`Bearer ${await token({ "cognito:groups": ["restricted-reader"] }, other)}`)).toBeNull();
    expect(await who(`Bearer ${await token({}, key, issuer, "client-2")}`)).toBeNull();
    expect(await who(`Bearer ${await token({}, key, "https://elsewhere.example")}`)).toBeNull();
    expect(await who("Bearer not-a-jwt")).toBeNull();
  });
});
