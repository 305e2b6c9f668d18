import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";

/** Who is writing, from the request's credentials; null when they are missing or wrong. */
export type Authenticator = (c: Context) => string | null;

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Local writes: one shared bearer token. Compared as digests in constant time, so neither the
 * token's length nor its prefix leaks through timing.
 */
export function bearerToken(token: string, writer: string): Authenticator {
  const expected = digest(token);
  return (c) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) return null;
    return timingSafeEqual(digest(match[1]), expected) ? writer : null;
  };
}

interface JwtClaims {
  sub?: string;
  email?: string;
  "cognito:username"?: string;
  username?: string;
}

/**
 * In AWS the HTTP API's JWT authorizer has already checked the token; the Lambda reads the
 * verified claims it passes along and names the writer by them.
 */
export function jwtAuthorizerClaims(): Authenticator {
  return (c) => {
    const env = c.env as
      | { event?: { requestContext?: { authorizer?: { jwt?: { claims?: JwtClaims } } } } }
      | undefined;
    const claims = env?.event?.requestContext?.authorizer?.jwt?.claims;
    if (!claims?.sub) return null;
    const name = claims.email ?? claims["cognito:username"] ?? claims.username;
    return name ? `${name} (${claims.sub})` : claims.sub;
  };
}
