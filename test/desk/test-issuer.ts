import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

/**
 * A tiny OpenID Connect issuer for tests: discovery, /authorize (the person "signs in" at
 * once, as `user`), /token (checks the code, redirect and PKCE verifier; signs an ID token
 * with jose) and its JWKS. `tamper` makes the next ID token wrong in one way.
 */
export interface TestUser {
  sub: string;
  email: string;
  groups: string[];
}
export type Tamper = "audience" | "expired" | "foreign-key" | "issuer" | "nonce" | null;

export async function startTestIssuer(clientId: string) {
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const foreign = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const codes = new Map<string, { challenge: string; redirectUri: string; nonce: string; user: TestUser }>();
  const state: { user: TestUser; tamper: Tamper; issuer: string; tokenRequests: number } = {
    user: { sub: "alice-sub", email: "alice@example.org", groups: ["writer"] },
    tamper: null,
    issuer: "",
    tokenRequests: 0,
  };
  const app = new Hono();
  app.get("/.well-known/openid-configuration", (c) =>
    c.json({
      issuer: state.issuer,
      authorization_endpoint: `${state.issuer}/authorize`,
      token_endpoint: `${state.issuer}/token`,
      jwks_uri: `${state.issuer}/.well-known/jwks.json`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
    }),
  );
  app.get("/.well-known/jwks.json", (c) => c.json({ keys: [jwk] }));
  app.get("/authorize", (c) => {
    const q = (name: string) => c.req.query(name) ?? "";
    if (q("client_id") !== clientId || q("response_type") !== "code" || q("code_challenge_method") !== "S256")
      return c.text("bad authorization request", 400);
    const code = randomBytes(16).toString("base64url");
    codes.set(code, {
      challenge: q("code_challenge"),
      redirectUri: q("redirect_uri"),
      nonce: q("nonce"),
      user: state.user,
    });
    const back = new URL(q("redirect_uri"));
    back.searchParams.set("code", code);
    back.searchParams.set("state", q("state"));
    return c.redirect(back.href, 302);
  });
  app.post("/token", async (c) => {
    state.tokenRequests += 1;
    const form = new URLSearchParams(await c.req.text());
    const grant = codes.get(form.get("code") ?? "");
    codes.delete(form.get("code") ?? "");
    const verifier = form.get("code_verifier") ?? "";
    if (
      !grant ||
      form.get("grant_type") !== "authorization_code" ||
      form.get("client_id") !== clientId ||
      form.get("redirect_uri") !== grant.redirectUri ||
      createHash("sha256").update(verifier).digest("base64url") !== grant.challenge
    )
      return c.json({ error: "invalid_grant" }, 400);
    const now = Math.floor(Date.now() / 1000);
    const tamper = state.tamper;
    const idToken = await new SignJWT({
      email: grant.user.email,
      "cognito:groups": grant.user.groups,
      nonce: tamper === "nonce" ? "another-nonce" : grant.nonce,
    })
      .setProtectedHeader({ alg: "RS256", kid: "test-key" })
      .setIssuer(tamper === "issuer" ? "https://elsewhere.example" : state.issuer)
      .setAudience(tamper === "audience" ? "another-client" : clientId)
      .setSubject(grant.user.sub)
      .setIssuedAt(tamper === "expired" ? now - 7200 : now)
      .setExpirationTime(tamper === "expired" ? now - 3600 : now + 3600)
      .sign(tamper === "foreign-key" ? foreign.privateKey : privateKey);
    return c.json({ id_token: idToken, access_token: "unused", token_type: "Bearer", expires_in: 3600 });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  state.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    state,
    get issuer() {
      return state.issuer;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
