import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publicOrigin } from "../../ledger.js";
import type { Logger } from "../../logger.js";
import { type LocalUser, tokenLookup } from "../auth.js";
import type { ReleaseRoutesDeps } from "../routes/releases.js";
import type { DeskConfig } from "./desk-pages.js";
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

/** The local desk: sign-in with a token of LEDGER_TOKEN or LEDGER_USERS, releases for editors. */
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
  return {
    signIn: { kind: "token", lookup: tokenLookup(options.users) },
    sessions: new Sessions(key, options.revocations),
    flowKey: key,
    releases: options.releases,
    log: options.log,
    ...(options.publicUrl ? { publicOrigin: publicOrigin(options.publicUrl)() } : {}),
  };
}
