import type { Context } from "hono";
import { Hono } from "hono";
import type { Child } from "hono/jsx";
import type { StoredEvent } from "../../../events/stored-event.js";
import type { PagesEvidence } from "../../evidence/evidence-routes.js";
import type { PagesBundle } from "../../evidence/proof-bundle.js";
import type { IncidentReader } from "../../incident-reader.js";
import type { Logger } from "../../logger.js";
import type { DisclosureReader } from "../../people/disclosure-reader.js";
import type { EventStore } from "../../store/event-store.js";
import type { EventRoutesDeps } from "../routes/events.js";
import type { ReleaseRoutesDeps } from "../routes/releases.js";
import { DeskPanel } from "./desk-page.js";
import { deskForms, deskRoutes, formsOffered } from "./desk-routes.js";
import type { DeskForm } from "./forms/desk-form.js";
import type { Sessions } from "./session.js";
import { type SignIn, signInRoutes } from "./sign-in-routes.js";

/** How this deployment's desk signs people in and keeps their sessions. */
export interface DeskConfig {
  signIn: SignIn;
  sessions: Sessions;
  /** The key of the short-lived cookie an OIDC sign-in keeps its state in (the session key). */
  flowKey: Promise<Uint8Array> | Uint8Array;
  releases?: Omit<ReleaseRoutesDeps, "authenticate">;
  forms?: readonly DeskForm[];
  /** The configured public origin (LEDGER_PUBLIC_URL; in AWS the stack's URL): where forms must be posted from. */
  publicOrigin?: string;
}

/** The desk's routes, and the panel the incident page shows a signed-in person. */
export function deskPages(deps: {
  events: EventStore;
  reader: IncidentReader;
  log: Logger;
  desk: DeskConfig;
  /** The API's write path: the sealing append and its checks, never the bare event store's. */
  writes: Omit<EventRoutesDeps, "authenticate">;
  /** The API's evidence store and limit: with them, the desk's upload form. */
  evidence?: PagesEvidence;
  /** The API's proof bundles: a signed-in restricted-reader's by session. */
  bundle?: PagesBundle;
  /** The sealed values a signed-in restricted-reader sees on the forms that name people. */
  disclosures?: DisclosureReader;
}) {
  const { desk } = deps;
  const forms = deskForms(desk.forms, deps.evidence !== undefined);
  const routes = new Hono();
  routes.route(
    "/",
    signInRoutes({
      signIn: desk.signIn,
      sessions: desk.sessions,
      flowKey: desk.flowKey,
      log: deps.log,
      ...(desk.publicOrigin ? { publicOrigin: desk.publicOrigin } : {}),
    }),
  );
  routes.route(
    "/",
    deskRoutes({
      events: deps.events,
      reader: deps.reader,
      sessions: desk.sessions,
      log: deps.log,
      writes: deps.writes,
      ...(desk.releases ? { releases: desk.releases } : {}),
      forms,
      ...(deps.evidence ? { evidence: deps.evidence } : {}),
      ...(deps.bundle ? { bundle: deps.bundle } : {}),
      ...(deps.disclosures ? { disclosures: deps.disclosures } : {}),
      ...(desk.publicOrigin ? { publicOrigin: desk.publicOrigin } : {}),
    }),
  );
  const panel = async (c: Context, incidentId: string, events: readonly StoredEvent[]): Promise<Child> => {
    const session = await desk.sessions.read(c);
    if (!session)
      return (
        <p class="muted" data-desk="">
          Writers: <a href={`/sign-in?next=${encodeURIComponent(c.req.path)}`}>sign in</a> to add reports.
        </p>
      );
    return (
      <DeskPanel
        session={session}
        incidentId={incidentId}
        offered={formsOffered(session.who, events, forms)}
      />
    );
  };
  /** The signed-in person, as a reader of the pages (restricted values for a restricted-reader). */
  const reader = async (c: Context) => (await desk.sessions.read(c))?.who ?? null;
  return { routes, panel, reader };
}
