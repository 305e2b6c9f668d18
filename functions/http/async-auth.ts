import type { Context } from "hono";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { ForbiddenError, UnauthorizedError } from "../errors.js";
import { type Authenticator, type Principal, principalFromClaims, type Role } from "./auth.js";

/**
 * The caller of a route that no API Gateway authorizer guards (the public GET routes in AWS),
 * found by the Lambda itself: a bearer token checked here, or none (a reader).
 */
export type AsyncAuthenticator = (c: Context) => Promise<Principal | null>;

/** A synchronous authenticator (local tokens, an authorizer's claims) as an asynchronous one. */
export const asAsync =
  (authenticate: Authenticator): AsyncAuthenticator =>
  async (c) =>
    authenticate(c);

export interface JwtBearerOptions {
  /** The token issuer (`iss`), e.g. the Cognito user pool's URL. */
  issuer: string;
  /** Accepted audiences (`aud`, or a Cognito access token's `client_id`). */
  audience: readonly string[];
  /** The issuer's JWKS; default `<issuer>/.well-known/jwks.json` (Cognito's). */
  jwksUrl?: string;
  groupsClaim?: string;
}

/**
 * A bearer JWT verified in the Lambda against the issuer's JWKS (fetched once and cached by
 * jose): signature, issuer, expiry and audience. A missing, malformed or failing token is no
 * principal: the route then answers 401 for what needs one.
 */
export function jwtBearer(options: JwtBearerOptions): AsyncAuthenticator {
  // A configured issuer with a trailing slash still matches the `iss` Cognito writes (none).
  const issuer = options.issuer.replace(/\/+$/, "");
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl ?? `${issuer}/.well-known/jwks.json`));
  const audiences = new Set(options.audience);
  return async (c) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1]) return null;
    try {
      const { payload } = await jwtVerify(match[1], jwks, { issuer });
      // Cognito's access tokens carry client_id, not aud: accept either naming an audience.
      const aud = [payload.aud ?? [], payload.client_id ?? []].flat() as unknown[];
      if (!aud.some((a) => typeof a === "string" && audiences.has(a))) return null;
      return principalFromClaims(payload as Parameters<typeof principalFromClaims>[0], options.groupsClaim);
    } catch {
      return null;
    }
  };
}

/** `requireRole` for an asynchronous authenticator: 401 without a principal, 403 without the role. */
export async function requireRoleAsync(
  authenticate: AsyncAuthenticator,
  c: Context,
  role: Role,
  doing: string,
): Promise<Principal> {
  const who = await authenticate(c);
  if (!who) {
    c.header("WWW-Authenticate", 'Bearer realm="incident-ledger"');
    throw new UnauthorizedError(`${doing} needs Authorization: Bearer <token>`);
  }
  if (!who.roles.has(role)) {
    throw new ForbiddenError(`${doing} needs the ${role} role, which ${who.name} does not hold`, undefined, {
      role,
    });
  }
  return who;
}
