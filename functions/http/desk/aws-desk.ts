import { publicOrigin } from "../../ledger.js";
import type { Logger } from "../../logger.js";
import type { ReleaseRoutesDeps } from "../routes/releases.js";
import type { DeskConfig } from "./desk-pages.js";
import { OidcClient } from "./oidc.js";
import { getSecretString } from "./secret-value.js";
import { Sessions, sessionKeyFromText } from "./session.js";
import type { SessionRevocations } from "./session-revocations.js";

/**
 * The desk in AWS, from the pages Lambda's environment (infra/desk.ts sets it): OpenID Connect
 * against DESK_OIDC_ISSUER (the stack's user pool, or the configured issuer) for the app
 * client DESK_OIDC_CLIENT_ID; sessions signed with the secret DESK_SESSION_SECRET_ARN, revoked
 * at sign-out in `revocations` (the table DESK_SESSIONS_TABLE).
 * Undefined when the stack configures no desk: the pages stay read-only.
 */
export function deskFromEnv(
  env: NodeJS.ProcessEnv,
  log: Logger,
  parts: {
    revocations: SessionRevocations;
    /** The release store and the log (releases: an editor's form), as POST /releases has them. */
    releases: Omit<ReleaseRoutesDeps, "authenticate">;
  },
): (DeskConfig & { log: Logger }) | undefined {
  const issuer = env.DESK_OIDC_ISSUER;
  const clientId = env.DESK_OIDC_CLIENT_ID;
  const secretArn = env.DESK_SESSION_SECRET_ARN;
  if (!issuer || !clientId || !secretArn) return undefined;
  const key = getSecretString(secretArn).then(sessionKeyFromText);
  return {
    signIn: {
      kind: "oidc",
      client: new OidcClient({
        issuer,
        clientId,
        ...(env.DESK_OIDC_GROUPS_CLAIM ? { groupsClaim: env.DESK_OIDC_GROUPS_CLAIM } : {}),
        ...(env.DESK_OIDC_LOGOUT_URL ? { logoutUrl: env.DESK_OIDC_LOGOUT_URL } : {}),
      }),
    },
    sessions: new Sessions(key, parts.revocations),
    releases: parts.releases,
    flowKey: key,
    log,
    // The stack's URL (infra/ledger-stack.ts sets it on the pages function): forms must come from it.
    ...(env.LEDGER_PUBLIC_URL ? { publicOrigin: publicOrigin(env.LEDGER_PUBLIC_URL)() } : {}),
  };
}
