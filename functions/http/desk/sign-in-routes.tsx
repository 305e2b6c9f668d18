import { type Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { jwtVerify, SignJWT } from "jose";
import type { Logger } from "../../logger.js";
import { acceptQuery } from "../params.js";
import { readBodyText } from "../read-body.js";
import { DeskLayout, localPath, messagePage, renderDesk } from "./desk-page.js";
import { ErrorSummary, fieldId } from "./form-kit.js";
import { formValues } from "./form-read.js";
import type { TokenSignIn } from "./local-credentials.js";
import { type OidcClient, type PendingSignIn, SignInFailedError } from "./oidc.js";
import { sameOrigin } from "./same-origin.js";
import { formTokenMatches, isHttps, type Sessions } from "./session.js";

/** How a person signs in: a token (locally) or their issuer's login page (AWS). */
export type SignIn =
  | { kind: "token"; lookup: (token: string) => TokenSignIn | null }
  | { kind: "oidc"; client: OidcClient };

export interface SignInDeps {
  signIn: SignIn;
  sessions: Sessions;
  /** The key the pending sign-in cookie is signed with (the session key). */
  flowKey: Promise<Uint8Array> | Uint8Array;
  log: Logger;
  /** The configured public origin a form must be posted from (same-origin.ts). */
  publicOrigin?: string;
}

const FLOW_COOKIE = "ledger_sign_in";
/** A token and a path: a few hundred bytes; more is not a sign-in form. */
const SIGN_IN_BYTES = 16 * 1024;
/** What an issuer may add to the callback (RFC 6749 §4.1.2, OpenID Connect's session state). */
export const CALLBACK_QUERY = [
  "code",
  "state",
  "error",
  "error_description",
  "error_uri",
  "iss",
  "session_state",
];
const FLOW_SECONDS = 600;

/** GET/POST /sign-in, GET /sign-in/callback (OIDC), POST /sign-out. */
export function signInRoutes({ signIn, sessions, flowKey, log, publicOrigin }: SignInDeps): Hono {
  const app = new Hono();
  const callbackUrl = (c: Context) => `${new URL(c.req.url).origin}/sign-in/callback`;

  app.get("/sign-in", acceptQuery("next"), async (c) => {
    const next = localPath(c.req.query("next"));
    if (signIn.kind === "oidc") return startOidc(c, signIn.client, next);
    return tokenPage(c, 200, next, null);
  });

  app.post("/sign-in", acceptQuery(), sameOrigin(publicOrigin), async (c) => {
    const values = formValues(await readBodyText(c, SIGN_IN_BYTES));
    const next = localPath(values.get("next"));
    if (signIn.kind === "oidc") return startOidc(c, signIn.client, next);
    const token = (values.get("token") ?? "").trim();
    const known = token ? signIn.lookup(token) : null;
    // Nothing typed is a form to fill in (200); a wrong token is refused credentials (401).
    if (!token) return tokenPage(c, 200, next, "Enter the token you were given");
    if (!known) return tokenPage(c, 401, next, "That token is not one this archive knows");
    // The session lasts while this token is configured as it is now (local-credentials.ts).
    await sessions.start(c, known.who, { fingerprint: known.fingerprint });
    return c.redirect(next, 303);
  });

  app.get("/sign-in/callback", acceptQuery(...CALLBACK_QUERY), async (c) => {
    if (signIn.kind !== "oidc")
      return messagePage(
        c,
        200,
        "Sign in with a token",
        "This archive signs in with a token, on its sign-in page.",
      );
    const refusal = c.req.query("error");
    if (refusal) {
      // The person cancelled at the issuer, or it refused: nothing went wrong here.
      deleteCookie(c, FLOW_COOKIE, { path: "/sign-in", secure: isHttps(c) });
      const why = c.req.query("error_description") ?? refusal;
      return messagePage(
        c,
        200,
        "Not signed in",
        <>
          The sign-in service answered: <bdi>{why}</bdi>. Start again from the sign-in page.
        </>,
      );
    }
    const raw = getCookie(c, FLOW_COOKIE);
    deleteCookie(c, FLOW_COOKIE, { path: "/sign-in", secure: isHttps(c) });
    const pending = raw ? await readFlow(raw, await flowKey) : null;
    const code = c.req.query("code");
    if (!pending || !code || c.req.query("state") !== pending.state) {
      return messagePage(
        c,
        400,
        "Sign-in did not complete",
        "This sign-in was started elsewhere, took too long, or was cancelled. Start again from the sign-in page.",
      );
    }
    try {
      const who = await signIn.client.finish(code, pending, callbackUrl(c));
      await sessions.start(c, who);
      return c.redirect(localPath(pending.next), 303);
    } catch (error) {
      if (!(error instanceof SignInFailedError)) throw error;
      log.warn("sign-in failed", { reason: error.message });
      return messagePage(
        c,
        401,
        "Sign-in did not complete",
        `${error.message}. Start again from the sign-in page.`,
      );
    }
  });

  // An address typed or bookmarked: signing out changes state, so it is the page's button.
  app.get("/sign-out", acceptQuery(), async (c) => {
    const session = await sessions.read(c);
    return renderDesk(
      c,
      200,
      <DeskLayout title="Sign out" {...(session ? { session } : {})}>
        <h1>Sign out</h1>
        {session ? (
          <p>Use the Sign out button above: it ends this session on the server too.</p>
        ) : (
          <p>
            You are not signed in on this browser. <a href="/sign-in">Sign in</a> or{" "}
            <a href="/">read the incidents</a>.
          </p>
        )}
      </DeskLayout>,
    );
  });

  app.post("/sign-out", acceptQuery(), sameOrigin(publicOrigin), async (c) => {
    const session = await sessions.read(c);
    const values = formValues(await readBodyText(c, SIGN_IN_BYTES));
    if (session && !formTokenMatches(session, values.get("formToken")))
      return messagePage(c, 403, "Not signed out", "That sign-out form was not this session's.", session);
    await sessions.end(c, session);
    const logout = signIn.kind === "oidc" ? signIn.client.config.logoutUrl : undefined;
    return renderDesk(
      c,
      200,
      <DeskLayout title="Signed out">
        <h1>Signed out</h1>
        <p>You are signed out of the desk on this browser.</p>
        {logout ? (
          <p>
            <a href={logout}>Sign out of the sign-in service too</a> (on a shared computer, do).
          </p>
        ) : null}
        <p>
          <a href="/sign-in">Sign in again</a> or <a href="/">read the incidents</a>.
        </p>
      </DeskLayout>,
    );
  });

  async function startOidc(c: Context, client: OidcClient, next: string) {
    const { url, pending } = await client.start(callbackUrl(c));
    const flow = await new SignJWT({ ...pending, next })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt()
      .setExpirationTime(`${FLOW_SECONDS}s`)
      .sign(await flowKey);
    setCookie(c, FLOW_COOKIE, flow, {
      httpOnly: true,
      sameSite: "Lax",
      secure: isHttps(c),
      path: "/sign-in",
      maxAge: FLOW_SECONDS,
    });
    return c.redirect(url, 302);
  }

  return app;
}

async function readFlow(raw: string, key: Uint8Array): Promise<(PendingSignIn & { next: string }) | null> {
  try {
    const { payload } = await jwtVerify(raw, key, { algorithms: ["HS256"] });
    const { state, verifier, nonce, next } = payload as Record<string, unknown>;
    if (typeof state !== "string" || typeof verifier !== "string" || typeof nonce !== "string") return null;
    return { state, verifier, nonce, next: typeof next === "string" ? next : "/desk" };
  } catch {
    return null;
  }
}

function tokenPage(c: Context, status: 200 | 401, next: string, error: string | null) {
  const errors = new Map(error ? [["token", error]] : []);
  return renderDesk(
    c,
    status,
    <DeskLayout title={error ? "Error: Sign in" : "Sign in"}>
      <ErrorSummary errors={errors} />
      <h1>Sign in to the desk</h1>
      <p>Writers and editors record reports here. Reading needs no sign-in.</p>
      <form method="post" action="/sign-in" class="desk-form" novalidate>
        <input type="hidden" name="next" value={next} />
        <div class={error ? "field has-error" : "field"}>
          <label for={fieldId("token")}>Your token</label>
          <p class="field-hint" id="token-hint">
            The token your administrator gave you (or LEDGER_TOKEN from the server's start).
          </p>
          {error ? (
            <p class="field-error" id="token-error">
              <span class="visually-hidden">Error: </span>
              {error}
            </p>
          ) : null}
          <input
            type="password"
            id={fieldId("token")}
            name="token"
            autocomplete="current-password"
            aria-describedby={error ? "token-hint token-error" : "token-hint"}
            {...(error ? { "aria-invalid": "true" } : {})}
          />
        </div>
        <div class="actions">
          <button type="submit">Sign in</button>
        </div>
      </form>
    </DeskLayout>,
  );
}
