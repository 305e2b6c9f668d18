import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { type Principal, principalFromClaims } from "../auth.js";

/** An OpenID Connect issuer the desk signs people in with (the stack's user pool, or another). */
export interface OidcConfig {
  /** The issuer URL, exactly as its tokens' `iss` (Cognito: https://cognito-idp.<region>.amazonaws.com/<pool>). */
  issuer: string;
  clientId: string;
  /** Only for a confidential client; the stack's app client is public and uses PKCE alone. */
  clientSecret?: string;
  /** Where the roles are (default `cognito:groups`). */
  groupsClaim?: string;
  /** The issuer's own sign-out page, offered after signing out of the desk (Cognito's /logout). */
  logoutUrl?: string;
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** What the sign-in start keeps (in a signed cookie) until the issuer sends the person back. */
export interface PendingSignIn {
  state: string;
  verifier: string;
  nonce: string;
}

const b64url = (bytes: Buffer) => bytes.toString("base64url");
const random = () => b64url(randomBytes(32));

/**
 * The authorization code flow with PKCE (RFC 7636, S256). The ID token is checked by jose
 * against the issuer's published keys — signature, issuer, audience, expiry — and its nonce
 * against the one this sign-in sent; nothing about the token is trusted before that.
 */
export class OidcClient {
  private discovered: Promise<Discovery> | null = null;
  private jwks: ReturnType<typeof createRemoteJWKSet> | null = null;

  constructor(
    readonly config: OidcConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private discovery(): Promise<Discovery> {
    this.discovered ??= (async () => {
      const url = `${this.config.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
      const answer = await this.fetchImpl(url, { headers: { accept: "application/json" } });
      if (!answer.ok) throw new Error(`the issuer's discovery document answered ${answer.status}`);
      const doc = (await answer.json()) as Partial<Discovery> & { issuer?: string };
      if (doc.issuer !== this.config.issuer) throw new Error("the discovery document names another issuer");
      if (!doc.authorization_endpoint || !doc.token_endpoint || !doc.jwks_uri)
        throw new Error("the issuer's discovery document lacks an endpoint");
      return doc as Discovery;
    })().catch((error) => {
      this.discovered = null;
      throw error;
    });
    return this.discovered;
  }

  /** Where to send the browser, and what to keep until it comes back. */
  async start(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    const { authorization_endpoint } = await this.discovery();
    const pending = { state: random(), verifier: random(), nonce: random() };
    const url = new URL(authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.config.clientId,
      redirect_uri: redirectUri,
      scope: "openid email profile",
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: b64url(createHash("sha256").update(pending.verifier).digest()),
      code_challenge_method: "S256",
    }).toString();
    return { url: url.href, pending };
  }

  /** The code exchanged for tokens; the ID token verified; its user as a principal. */
  async finish(code: string, pending: PendingSignIn, redirectUri: string): Promise<Principal> {
    const { token_endpoint, jwks_uri } = await this.discovery();
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if (this.config.clientSecret) {
      const basic = `${encodeURIComponent(this.config.clientId)}:${encodeURIComponent(this.config.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString("base64")}`;
    }
    const answer = await this.fetchImpl(token_endpoint, {
      method: "POST",
      headers,
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: this.config.clientId,
        code_verifier: pending.verifier,
      }),
    });
    if (!answer.ok) throw new SignInFailedError(`the issuer refused the code (${answer.status})`);
    const tokens = (await answer.json()) as { id_token?: unknown };
    if (typeof tokens.id_token !== "string") throw new SignInFailedError("the issuer sent no ID token");
    this.jwks ??= createRemoteJWKSet(new URL(jwks_uri));
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(tokens.id_token, this.jwks, {
        issuer: this.config.issuer,
        audience: this.config.clientId,
        requiredClaims: ["exp", "iat", "sub"],
      }));
    } catch (error) {
      throw new SignInFailedError(`the ID token did not verify: ${(error as Error).message}`);
    }
    if (payload.nonce !== pending.nonce) throw new SignInFailedError("the ID token answers another sign-in");
    const who = principalFromClaims(payload as Record<string, unknown>, this.config.groupsClaim);
    if (!who) throw new SignInFailedError("the ID token names no user");
    return who;
  }
}

/** A sign-in that cannot be completed: the person is shown why and asked to try again. */
export class SignInFailedError extends Error {}
