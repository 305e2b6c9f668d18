import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { jwtVerify, SignJWT } from "jose";
import { type Principal, principal, ROLES, type Role } from "../auth.js";

/** A signed-in person: who, with which roles, and the anti-forgery token every form carries. */
export interface Session {
  readonly who: Principal;
  /** The per-session anti-forgery token: a form without it is refused (403). */
  readonly formToken: string;
  readonly expiresAt: number;
}

/** At most this long: the contract's 12 hours. */
export const SESSION_SECONDS = 12 * 60 * 60;
const COOKIE = "ledger_session";

/** Whether the request carries a desk session cookie at all (valid or not): its page is then its own. */
export const hasSessionCookie = (c: Context): boolean => getCookie(c, COOKIE) !== undefined;
const ISSUER = "incident-ledger-desk";
const ALGORITHM = "HS256";

/** Over https the cookie is `Secure`; on plain-http loopback (npm start) it cannot be. */
export const isHttps = (c: Context) => new URL(c.req.url).protocol === "https:";

/**
 * Sessions as cookies signed with a key from the environment (HS256 JWTs, by jose): nothing is
 * kept on the server, so any instance of the pages Lambda reads any session, and a changed key
 * ends them all. The roles are those the user held at sign-in, for at most 12 hours.
 */
export class Sessions {
  private readonly key: Promise<Uint8Array>;

  /** `key` may still be on its way (AWS: read from Secrets Manager at cold start). */
  constructor(
    key: Uint8Array | Promise<Uint8Array>,
    private readonly now: () => number = Date.now,
  ) {
    this.key = Promise.resolve(key).then((bytes) => {
      if (bytes.byteLength < 32) throw new Error("the session key must be at least 32 bytes");
      return bytes;
    });
    // A key that failed to arrive fails each request that needs it, not the process.
    this.key.catch(() => undefined);
  }

  async start(c: Context, who: Principal, seconds = SESSION_SECONDS): Promise<Session> {
    const lifetime = Math.min(seconds, SESSION_SECONDS);
    const issuedAt = Math.floor(this.now() / 1000);
    const formToken = randomBytes(24).toString("base64url");
    const jwt = await new SignJWT({ roles: [...who.roles], ft: formToken })
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(ISSUER)
      .setSubject(who.name)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + lifetime)
      .sign(await this.key);
    setCookie(c, COOKIE, jwt, {
      httpOnly: true,
      sameSite: "Lax",
      secure: isHttps(c),
      path: "/",
      maxAge: lifetime,
    });
    return { who, formToken, expiresAt: (issuedAt + lifetime) * 1000 };
  }

  /** The request's session, or null: none, expired, or not signed with this key. */
  async read(c: Context): Promise<Session | null> {
    const jwt = getCookie(c, COOKIE);
    if (!jwt) return null;
    const key = await this.key;
    try {
      const { payload } = await jwtVerify(jwt, key, {
        issuer: ISSUER,
        algorithms: [ALGORITHM],
        currentDate: new Date(this.now()),
        maxTokenAge: SESSION_SECONDS,
      });
      const roles = Array.isArray(payload.roles)
        ? payload.roles.filter((r): r is Role => (ROLES as readonly unknown[]).includes(r))
        : [];
      if (typeof payload.sub !== "string" || typeof payload.ft !== "string" || !payload.exp) return null;
      return { who: principal(payload.sub, roles), formToken: payload.ft, expiresAt: payload.exp * 1000 };
    } catch {
      return null;
    }
  }

  end(c: Context): void {
    deleteCookie(c, COOKIE, { path: "/", secure: isHttps(c), httpOnly: true, sameSite: "Lax" });
  }
}

/** The form's anti-forgery token against the session's, in constant time. */
export function formTokenMatches(session: Session, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(session.formToken);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The session key from its text (LEDGER_SESSION_KEY, or the secret's value in AWS): base64url
 * of at least 32 bytes, or any text of at least 32 characters used as it is.
 */
export function sessionKeyFromText(text: string): Uint8Array {
  const trimmed = text.trim();
  const decoded = /^[A-Za-z0-9_-]{43,}={0,2}$/.test(trimmed) ? Buffer.from(trimmed, "base64url") : null;
  if (decoded && decoded.byteLength >= 32) return new Uint8Array(decoded);
  const raw = Buffer.from(trimmed, "utf8");
  if (raw.byteLength < 32)
    throw new Error("LEDGER_SESSION_KEY must be at least 32 bytes (base64url or text)");
  return new Uint8Array(raw);
}

/** A fresh key as text, for a first start (kept in DATA_DIR) or a test run. */
export const newSessionKeyText = () => randomBytes(32).toString("base64url");
