import { createHmac } from "node:crypto";
import { type LocalUser, type Principal, principal, tokenLookup } from "../auth.js";
import type { SessionCredentials } from "./session.js";

/**
 * What the session's MAC of a token starts with. The session key also signs the cookies
 * (HS256, an HMAC over `header.payload` in base64url): a message with a space and a line break
 * can never be such an input, so no token's fingerprint is a signature of some cookie.
 */
const LABEL = "incident-ledger desk session credential\n";

/** A token sign-in: who it names, and the fingerprint their session keeps in place of the token. */
export interface TokenSignIn {
  who: Principal;
  fingerprint: string;
}

/**
 * The local users (LEDGER_TOKEN and LEDGER_USERS) as the desk's sessions know them. A session
 * keeps a keyed fingerprint of the token it was signed in with (HMAC-SHA256 with the session
 * key: the cookie never carries the token, and no one without the key can make one), and holds
 * only while a configured token has that fingerprint, under the same name with the same roles.
 * So a restart with another LEDGER_TOKEN, a user removed from LEDGER_USERS, renamed or given
 * other roles ends their sessions, as the old token stops working on the API.
 */
export class LocalCredentials implements SessionCredentials {
  private readonly lookup: (token: string) => Principal | null;
  /** Fingerprint → the user it names now. */
  private readonly current = new Map<string, Principal>();

  constructor(
    users: readonly LocalUser[],
    private readonly key: Uint8Array,
  ) {
    this.lookup = tokenLookup(users);
    for (const user of users)
      this.current.set(this.fingerprint(user.token), principal(user.name, user.roles));
  }

  /** The user a token names and their session's fingerprint; null for a token no one holds. */
  signIn(token: string): TokenSignIn | null {
    const who = this.lookup(token);
    return who ? { who, fingerprint: this.fingerprint(token) } : null;
  }

  /**
   * Whether a session's fingerprint still names a configured user, as the session names them.
   * A plain map lookup: the fingerprint comes from a cookie signed with the key, which no one
   * can probe with.
   */
  holds(fingerprint: string, who: Principal): boolean {
    const now = this.current.get(fingerprint);
    return now !== undefined && now.name === who.name && sameRoles(now.roles, who.roles);
  }

  private fingerprint(token: string): string {
    return createHmac("sha256", this.key).update(LABEL).update(token).digest("base64url");
  }
}

const sameRoles = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size === b.size && [...a].every((role) => b.has(role));
