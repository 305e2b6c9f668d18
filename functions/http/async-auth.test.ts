import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AsyncAuthenticator, jwtBearer } from "./async-auth.js";

let server: Server;
let issuer: string;
let sign: (claims: JWTPayload, o?: { iss?: string; exp?: string; aud?: string }) => Promise<string>;
let stranger: (claims: JWTPayload) => Promise<string>;

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const other = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  server = createServer((req, res) => {
    if (req.url !== "/.well-known/jwks.json") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sign = (claims, o = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(o.iss ?? issuer)
      .setAudience(o.aud ?? "desk-client")
      .setIssuedAt()
      .setExpirationTime(o.exp ?? "5m")
      .sign(privateKey);
  stranger = (claims) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(issuer)
      .setAudience("desk-client")
      .setExpirationTime("5m")
      .sign(other.privateKey);
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function who(authenticate: AsyncAuthenticator, token?: string) {
  const app = new Hono();
  app.get("/", async (c) => {
    const p = await authenticate(c);
    return c.json(p ? { name: p.name, roles: [...p.roles].sort() } : null);
  });
  const answer = await app.request("/", { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return answer.json();
}

describe("jwtBearer: a JWT checked in the Lambda against the issuer's JWKS", () => {
  it("given a valid token with groups, when a GET asks, then the principal holds those roles", async () => {
    const auth = jwtBearer({ issuer, audience: ["desk-client"] });
    const token = await sign({
      sub: "u-1",
      email: "ana@example.org",
      "cognito:groups": ["restricted-reader"],
    });
    expect(await who(auth, token)).toEqual({ name: "ana@example.org (u-1)", roles: ["restricted-reader"] });
    // An issuer configured with a trailing slash is the same issuer.
    const slashed = jwtBearer({ issuer: `${issuer}/`, audience: ["desk-client"] });
    expect(await who(slashed, token)).toMatchObject({ roles: ["restricted-reader"] });
  });

  it("takes a Cognito access token's client_id as its audience", async () => {
    const auth = jwtBearer({ issuer, audience: ["desk-client"] });
    const token = await sign(
      { sub: "u-2", client_id: "desk-client", "cognito:groups": ["writer"] },
      { aud: "other" },
    );
    expect(await who(auth, token)).toMatchObject({ roles: ["writer"] });
  });

  it("is no one for no token, another issuer, another audience, an expired token or another key", async () => {
    const auth = jwtBearer({ issuer, audience: ["desk-client"] });
    const claims = { sub: "u-3", "cognito:groups": ["restricted-reader"] };
    expect(await who(auth)).toBeNull();
    expect(await who(auth, "not-a-jwt")).toBeNull();
    expect(await who(auth, await sign(claims, { iss: "https://elsewhere.example" }))).toBeNull();
    expect(await who(auth, await sign(claims, { aud: "someone-else" }))).toBeNull();
    expect(await who(auth, await sign(claims, { exp: "-1m" }))).toBeNull();
    expect(await who(auth, await stranger(claims))).toBeNull();
  });
});
