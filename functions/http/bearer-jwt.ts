import type { Context } from "hono";
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose";
import { type Principal, principalFromClaims } from "./auth.js";

export interface BearerJwtOptions {
  issuer: string;
  /** The audiences (client ids) a token may be for. */
  audience: string | readonly string[];
  /** The issuer's JWKS (default: `<issuer>/.well-known/jwks.json`, as Cognito serves it). */
  jwksUrl?: string;
  /** The claim holding the roles (default `cognito:groups`). */
  groupsClaim?: string;
}

/**
 * Who a bearer JWT names, verified in the Lambda: API Gateway runs no authorizer on public GETs,
 * so a read that may show restricted values (disclosures, the incident page) checks the token
 * itself — signature against the issuer's JWKS (fetched once, then cached by jose), issuer,
 * audience and expiry. null for no token or one that does not verify, never an exception.
 */
export function bearerJwt(options: BearerJwtOptions): (c: Context) => Promise<Principal | null> {
  const issuer = options.issuer.replace(/\/+$/, "");
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl ?? `${issuer}/.well-known/jwks.json`));
  const audience = typeof options.audience === "string" ? options.audience : [...options.audience];
  return async (c) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1]) return null;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(match[1], jwks, { issuer, audience }));
    } catch {
      return null;
    }
    return principalFromClaims(payload as Parameters<typeof principalFromClaims>[0], options.groupsClaim);
  };
}
