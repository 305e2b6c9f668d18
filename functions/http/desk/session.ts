import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { jwtVerify, SignJWT } from "jose";
import { type Principal, principal, ROLES, type Role } from "../auth.js";
import type { SessionRevocations } from "./session-revocations.js";

/** A signed-in person: who, with which roles, and the anti-forgery token every form carries. */
export interface Session {
  readonly who: Principal;
  /** The per-session anti-forgery token: a form without it is refused (403). */
  readonly formToken: string;
  readonly expiresAt: number;
  /** The session's own id (the JWT's `jti`): what sign-out revokes. */
  readonly id: string;
}

/**
 * Where a session's credential is checked again on every read. Locally, the token it was
 * signed in with (local-credentials.ts); in AWS there is none: the issuer's ID token was the
 * authority at sign-in, and group changes apply at the next sign-in.
 */
export interface SessionCredentials {
  /** Whether the credential `fingerprint` names still holds, for `who` as the session names them. */
  holds(fingerprint: string, who: Principal): boolean;
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
 * Sessions as cookies signed with a key from the environment (HS256 JWTs, by jose): any
 * instance of the pages Lambda reads any session, and a changed key ends them all. The roles
 * are those the user held at sign-in, for at most 12 hours. Sign-out records the session's id
 * in `revocations` until its expiry, so a copy of the cookie ends with it. With `credentials`,
 * each session keeps a fingerprint of what it was signed in with and ends once that no longer
 * holds (a session without one, too: nothing vouches for it).
 */
export class Sessions {
  private readonly key: Promise<Uint8Array>;
  /** One read per request, however many parts of a page ask who is signed in. */
  private readonly seen = new WeakMap<Request, Promise<Session | null>>();

  private readonly now: () => number;
  private readonly credentials: SessionCredentials | undefined;

  /** `key` may still be on its way (AWS: read from Secrets Manager at cold start). */
  constructor(
    key: Uint8Array | Promise<Uint8Array>,
    private readonly revocations: SessionRevocations | null,
    options: { now?: () => number; credentials?: SessionCredentials } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.credentials = options.credentials;
    this.key = Promise.resolve(key).then((bytes) => {
      if (bytes.byteLength < 32) throw new Error("the session key must be at least 32 bytes");
      return bytes;
    });
    // A key that failed to arrive fails each request that needs it, not the process.
    this.key.catch(() => undefined);
  }

  /** A session for `who`; `fingerprint` names the credential it was made from (see `credentials`). */
  async start(
    c: Context,
    who: Principal,
    options: { seconds?: number; fingerprint?: string } = {},
  ): Promise<Session> {
    const lifetime = Math.min(options.seconds ?? SESSION_SECONDS, SESSION_SECONDS);
    const issuedAt = Math.floor(this.now() / 1000);
    const formToken = randomBytes(24).toString("base64url");
    const id = randomBytes(18).toString("base64url");
    const claims = {
      roles: [...who.roles],
      ft: formToken,
      ...(options.fingerprint ? { cr: options.fingerprint } : {}),
    };
    const jwt = await new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(ISSUER)
      .setSubject(who.name)
      .setJti(id)
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
    const session = { who, formToken, expiresAt: (issuedAt + lifetime) * 1000, id };
    this.seen.set(c.req.raw, Promise.resolve(session));
    return session;
  }

  /** The request's session, or null: none, expired, revoked, or not signed with this key. */
  read(c: Context): Promise<Session | null> {
    const known = this.seen.get(c.req.raw);
    if (known) return known;
    const reading = this.verify(c);
    this.seen.set(c.req.raw, reading);
    return reading;
  }

  private async verify(c: Context): Promise<Session | null> {
    const jwt = getCookie(c, COOKIE);
    if (!jwt) return null;
    const key = await this.key;
    let session: Session;
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
      const { sub, ft, jti, exp, cr } = payload;
      if (typeof sub !== "string" || typeof ft !== "string" || typeof jti !== "string" || !exp) return null;
      session = { who: principal(sub, roles), formToken: ft, expiresAt: exp * 1000, id: jti };
      // Signed out once the credential it was made from is gone or names someone else now.
      if (this.credentials && (typeof cr !== "string" || !this.credentials.holds(cr, session.who)))
        return null;
    } catch {
      return null;
    }
    // Outside the catch: a store that cannot answer is an error, never a silent sign-in or sign-out.
    return (await this.revocations?.isRevoked(session.id)) ? null : session;
  }

  /** Signs out: the session is revoked where it is kept (every copy of the cookie ends), and forgotten here. */
  async end(c: Context, session: Session | null): Promise<void> {
    if (session) await this.revocations?.revoke(session.id, session.expiresAt);
    this.seen.set(c.req.raw, Promise.resolve(null));
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
