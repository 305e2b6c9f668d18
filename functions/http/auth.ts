import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { ForbiddenError, UnauthorizedError } from "../errors.js";

/** What a signed-in user may do beyond reading (CONTRACT.md "Roles"). */
export const ROLES = ["writer", "editor", "restricted-reader"] as const;
export type Role = (typeof ROLES)[number];

/** Who is asking, and with which roles. `name` is what `recordedBy` stores. */
export interface Principal {
  readonly name: string;
  readonly roles: ReadonlySet<Role>;
}

/** The caller, from the request's credentials; null when they are missing or wrong. */
export type Authenticator = (c: Context) => Principal | null;

/** An editor may do what a writer may: the role is checked as "writer or more". */
const IMPLIED: Record<Role, readonly Role[]> = {
  writer: ["writer"],
  editor: ["editor", "writer"],
  "restricted-reader": ["restricted-reader"],
};

export function principal(name: string, roles: Iterable<Role>): Principal {
  const all = new Set<Role>();
  for (const role of roles) for (const implied of IMPLIED[role]) all.add(implied);
  return { name, roles: all };
}

export const hasRole = (who: Principal | null, role: Role): boolean => who?.roles.has(role) === true;

/**
 * The caller if it holds `role`: else 401 (no or wrong credentials, checked before anything
 * else about the request) or 403 (known, without the role). `doing` names the act for the message.
 */
export function requireRole(authenticate: Authenticator, c: Context, role: Role, doing: string): Principal {
  const who = authenticate(c);
  if (!who) {
    c.header("WWW-Authenticate", 'Bearer realm="incident-ledger"');
    throw new UnauthorizedError(`${doing} needs Authorization: Bearer <token>; nothing was stored`);
  }
  if (!who.roles.has(role)) {
    throw new ForbiddenError(
      `${doing} needs the ${role} role, which ${who.name} does not hold; nothing was stored`,
      undefined,
      {
        role,
      },
    );
  }
  return who;
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** A local user (LEDGER_USERS): a name, a bearer token and roles. */
export interface LocalUser {
  name: string;
  token: string;
  roles: readonly Role[];
}

/**
 * Local sign-in: bearer tokens, each a user. Compared as digests in constant time, every one
 * of them, so neither a token's length, its prefix nor which user matched leaks through timing.
 */
export function tokenUsers(users: readonly LocalUser[]): Authenticator {
  const lookup = tokenLookup(users);
  return (c) => {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] ? lookup(match[1]) : null;
  };
}

/** The user a token names (the desk's sign-in page takes the same tokens), compared as above. */
export function tokenLookup(users: readonly LocalUser[]): (token: string) => Principal | null {
  const known = users.map((user) => ({
    expected: digest(user.token),
    who: principal(user.name, user.roles),
  }));
  return (token) => {
    const given = digest(token);
    let found: Principal | null = null;
    for (const user of known) if (timingSafeEqual(given, user.expected)) found = user.who;
    return found;
  };
}

/** One shared token holding every role (`LEDGER_TOKEN`), named `writer` in `recordedBy`. */
export function bearerToken(token: string, writer: string): Authenticator {
  return tokenUsers([{ name: writer, token, roles: ROLES }]);
}

/**
 * `LEDGER_USERS`: one JSON object a line, `{ "name", "token", "roles": [...] }`. Blank lines and
 * lines starting with `#` are skipped. A bad line throws naming its number, never its token.
 */
export function parseUsersFile(text: string): LocalUser[] {
  const users: LocalUser[] = [];
  const names = new Set<string>();
  const tokens = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const where = `LEDGER_USERS line ${index + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`${where} is not JSON`);
    }
    const { name, token, roles } = (value ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || name.trim() === "" || name.length > 200)
      throw new Error(`${where}: "name" must be a non-empty string of at most 200 characters`);
    if (typeof token !== "string" || token.length < 16 || /\s/.test(token))
      throw new Error(`${where}: "token" must be at least 16 characters without white space`);
    if (!Array.isArray(roles) || roles.some((role) => !(ROLES as readonly unknown[]).includes(role)))
      throw new Error(`${where}: "roles" must be a list of ${ROLES.join(", ")}`);
    if (names.has(name)) throw new Error(`${where}: the name ${JSON.stringify(name)} is given twice`);
    if (tokens.has(token)) throw new Error(`${where}: this token is given to another user too`);
    names.add(name);
    tokens.add(token);
    users.push({ name, token, roles: roles as Role[] });
  });
  return users;
}

interface JwtClaims {
  sub?: string;
  email?: string;
  "cognito:username"?: string;
  username?: string;
  [claim: string]: unknown;
}

/**
 * A groups claim as API Gateway passes it on: a JSON array, or the authorizer's flattened text
 * form `[writer editor]`, or one space- or comma-separated string.
 */
export function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value !== "string") return [];
  const text = value.trim().replace(/^\[|\]$/g, "");
  return text.split(/[\s,]+/).filter((part) => part !== "");
}

/** A verified token's claims as the archive's principal: named by email or username and subject. */
export function principalFromClaims(claims: JwtClaims, groupsClaim = "cognito:groups"): Principal | null {
  if (typeof claims.sub !== "string" || claims.sub === "") return null;
  const name = claims.email ?? claims["cognito:username"] ?? claims.username;
  const roles = groupsOf(claims[groupsClaim]).filter((g): g is Role =>
    (ROLES as readonly string[]).includes(g),
  );
  return principal(typeof name === "string" && name ? `${name} (${claims.sub})` : claims.sub, roles);
}

/**
 * In AWS the HTTP API's JWT authorizer has already checked the token; the Lambda reads the
 * verified claims it passes along. Roles come from `groupsClaim` (the user pool's groups, or
 * the claim named at deploy time for another issuer).
 */
export function jwtAuthorizerClaims(groupsClaim = "cognito:groups"): Authenticator {
  return (c) => {
    const env = c.env as
      | { event?: { requestContext?: { authorizer?: { jwt?: { claims?: JwtClaims } } } } }
      | undefined;
    const claims = env?.event?.requestContext?.authorizer?.jwt?.claims;
    return claims ? principalFromClaims(claims, groupsClaim) : null;
  };
}
