import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publicOrigin } from "../../ledger.js";
import type { Logger } from "../../logger.js";
import type { LocalUser } from "../auth.js";
import type { ReleaseRoutesDeps } from "../routes/releases.js";
import type { DeskConfig } from "./desk-pages.js";
import { LocalCredentials } from "./local-credentials.js";
import { newSessionKeyText, Sessions, sessionKeyFromText } from "./session.js";
import type { SessionRevocations } from "./session-revocations.js";

const KEY_FILE = "session-key";

/**
 * The session key locally: LEDGER_SESSION_KEY if given; else the one kept in DATA_DIR, made at
 * first start (sessions then survive a restart); else, in memory only, a new one per run (tests).
 */
export function localSessionKey(options: { sessionKey?: string; dataDir?: string }): Uint8Array {
  if (options.sessionKey) return sessionKeyFromText(options.sessionKey);
  if (!options.dataDir) return sessionKeyFromText(newSessionKeyText());
  const file = join(options.dataDir, KEY_FILE);
  if (!existsSync(file)) writeFileSync(file, `${newSessionKeyText()}\n`, { mode: 0o600, flag: "wx" });
  return sessionKeyFromText(readFileSync(file, "utf8"));
}

/**
 * The local desk: sign-in with a token of LEDGER_TOKEN or LEDGER_USERS, each session lasting
 * only while its token is configured with the name and roles it had; releases for editors.
 */
export function localDesk(options: {
  users: readonly LocalUser[];
  sessionKey?: string;
  dataDir?: string;
  releases: Omit<ReleaseRoutesDeps, "authenticate">;
  /** Where sign-out revokes a session (the archive's desk-sessions table). */
  revocations: SessionRevocations;
  log: Logger;
  /** LEDGER_PUBLIC_URL, when configured: forms must come from its origin. */
  publicUrl?: string;
}): DeskConfig & { log: Logger } {
  const key = localSessionKey(options);
  const credentials = new LocalCredentials(options.users, key);
  return {
    signIn: { kind: "token", lookup: (token) => credentials.signIn(token) },
    // A session holds while the token it was made from is configured as it was (local-credentials.ts).
    sessions: new Sessions(key, options.revocations, { credentials }),
    flowKey: key,
    releases: options.releases,
    log: options.log,
    ...(options.publicUrl ? { publicOrigin: publicOrigin(options.publicUrl)() } : {}),
  };
}
