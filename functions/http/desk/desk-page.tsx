import type { Context } from "hono";
import { html } from "hono/html";
import type { Child, FC } from "hono/jsx";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { viewPath } from "../pages/format.js";
import { Layout } from "../pages/layout.js";
import { DESK_CSP, DESK_CSS } from "./desk-styles.js";
import { formAddress } from "./form-address.js";
import type { Session } from "./session.js";

/** Who is signed in, and the sign-out button (a form: signing out changes state). */
export const DeskBar: FC<{ session: Session }> = ({ session }) => (
  <div class="desk-bar">
    <span>
      Signed in as{" "}
      <strong>
        <bdi>{session.who.name}</bdi>
      </strong>
      {` (${[...session.who.roles].join(", ") || "no roles"})`}
    </span>
    <a href="/desk">Desk</a>
    <form method="post" action="/sign-out">
      <input type="hidden" name="formToken" value={session.formToken} />
      <button type="submit" class="secondary">
        Sign out
      </button>
    </form>
  </div>
);

export const DeskLayout: FC<{ title: string; session?: Session | null; children?: Child }> = ({
  title,
  session,
  children,
}) => (
  <Layout title={`${title} · Incident ledger desk`} styles={DESK_CSS}>
    {session ? <DeskBar session={session} /> : null}
    {children}
  </Layout>
);

/** Every desk page goes out through here: never cached (it holds a form token), strict CSP, no script. */
export async function renderDesk(
  c: Context,
  status: ContentfulStatusCode,
  page: JSX.Element,
): Promise<Response> {
  c.header("Content-Security-Policy", DESK_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  return c.html(await html`<!doctype html>${page}`, status);
}

/** A page of one message; client text in `text` (a sign-in service's words) comes in a <bdi>. */
export function messagePage(
  c: Context,
  status: ContentfulStatusCode,
  title: string,
  text: Child,
  session?: Session | null,
  after?: Child,
): Promise<Response> {
  return renderDesk(
    c,
    status,
    <DeskLayout title={title} session={session ?? null}>
      <h1>{title}</h1>
      <p>{text}</p>
      {after}
      <p>
        <a href="/">Back to all incidents</a>
      </p>
    </DeskLayout>,
  );
}

/** The desk's own page: the forms that open an incident, and the latest incidents to add to. */
export const DeskHome: FC<{
  session: Session;
  /** The forms that open an incident this person may use. */
  offered: readonly { title: string }[];
  /** Whether to offer naming a release (an editor, where releases are kept). */
  release: boolean;
  readOnly: boolean;
  /** Whether this person may add to an incident (else the list is only the way to read them). */
  mayAdd: boolean;
  recent: readonly { incidentId: string; title?: string | null }[];
}> = ({ session, offered, release, readOnly, mayAdd, recent }) => (
  <DeskLayout title="Desk" session={session}>
    <h1>The desk</h1>
    {readOnly ? (
      <p>Your roles let you read only: ask an administrator for the writer role to record reports.</p>
    ) : null}
    <ul class="desk-links">
      {offered.map((f) => (
        <li>
          <a href={formAddress("/desk/new")}>{f.title}</a>
        </li>
      ))}
      {release ? (
        <li>
          <a href="/desk/release">Name a release</a>
        </li>
      ) : null}
    </ul>
    <h2>{mayAdd ? "Add to an incident" : "Recent incidents"}</h2>
    <ul>
      {recent.map((i) => (
        <li>
          <a href={viewPath(i.incidentId)}>
            <bdi>{i.title ?? i.incidentId}</bdi>
          </a>
        </li>
      ))}
    </ul>
  </DeskLayout>
);

/** The incident page's desk panel for a signed-in person: the forms they may open on it. */
export const DeskPanel: FC<{
  session: Session;
  incidentId: string;
  offered: readonly { slug: string; title: string; blurb: string }[];
}> = ({ session, incidentId, offered }) => (
  <section class="panel" aria-labelledby="desk-h" data-desk="">
    <h2 id="desk-h">Add to this incident</h2>
    <p>
      Signed in as <bdi>{session.who.name}</bdi>
      {". "}
      {offered.length === 0 ? "Your roles let you read only." : null}
    </p>
    <ul class="toc-list">
      {offered.map((form) => (
        <li>
          <a href={formAddress(`/desk/incidents/${incidentId}/${form.slug}`)}>{form.title}</a>
          {` — ${form.blurb}`}
        </li>
      ))}
    </ul>
    <form method="post" action="/sign-out">
      <input type="hidden" name="formToken" value={session.formToken} />
      <button type="submit">Sign out</button>
    </form>
  </section>
);

/** A path of this site to return to after signing in: never another origin. */
export function localPath(next: string | undefined, fallback = "/desk"): string {
  return next && /^\/(?![/\\])[^\s\\]*$/.test(next) ? next : fallback;
}

/**
 * A form's values held in a page that could not take them (its session had ended), to be sent
 * again as they were once signed in: the desk then shows the form filled in, for this session.
 */
export const ResendForm: FC<{ action: string; values: ReadonlyMap<string, string> }> = ({
  action,
  values,
}) => (
  <form method="post" action={action}>
    {[...values].map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
    <button type="submit">Send it again</button>
  </form>
);
