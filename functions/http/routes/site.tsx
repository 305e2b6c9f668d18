import { Hono } from "hono";
import type { PagesEvidence } from "../../evidence/evidence-routes.js";
import type { PagesBundle } from "../../evidence/proof-bundle.js";
import type { Logger } from "../../logger.js";
import { answerHeaders } from "../answer-headers.js";
import { type DeskConfig, deskPages } from "../desk/desk-pages.js";
import { DESK_DOWNLOADS } from "../desk/desk-routes.js";
import { CodebookPage, codebookHtml } from "../pages/codebook-page.js";
import { DocsPage } from "../pages/docs-page.js";
import { API_DOWNLOADS } from "../pages/evidence-section.js";
import { problemPage } from "../pages/problem-page.js";
import { renderPage } from "../pages/render-page.js";
import { acceptQuery } from "../params.js";
import { createErrorHandler, notFoundHandler } from "../problem.js";
import type { SiteDocuments } from "../site-documents.js";
import { type DashboardDeps, dashboardRoutes } from "./dashboard.js";
import type { EventRoutesDeps } from "./events.js";
import { findingPageRoutes } from "./finding-pages.js";

export interface PageRoutesDeps extends DashboardDeps {
  /** Where a page route's failures are logged. */
  log: Logger;
  /** The OpenAPI document /docs renders (see MetaRoutesDeps.openApi) and the codebook /codebook renders. */
  documents: SiteDocuments;
  /** The desk (sign-in, forms); without it the pages are read-only. */
  desk?: DeskConfig & { log: Logger };
  /** The API's write path (the sealing append and its checks), which the desk's posts take. */
  writes?: Omit<EventRoutesDeps, "authenticate">;
  /** The API's evidence store and limit (functions/evidence): the desk's upload form posts through them. */
  evidence?: PagesEvidence;
  /** The API's proof bundles (functions/evidence): the desk's, by session, hold restricted bytes. */
  bundle?: PagesBundle;
}

/**
 * The pages people read: the dashboard (`/`, `/view/{id}`), `/docs` and `/codebook`. Mounted beside the
 * JSON API by the local server; in AWS they are a Lambda of their own, so the API Lambda
 * carries no JSX, no page code and no document renderer.
 */
export function pageRoutes(deps: PageRoutesDeps): Hono {
  // The desk writes through the API's own append path (which seals personal data), never around it.
  if (deps.desk && !deps.writes) throw new Error("the desk needs the API's write path (ledger.pageDeps)");
  const desk =
    deps.desk && deps.writes
      ? deskPages({ ...deps, writes: deps.writes, log: deps.desk.log, desk: deps.desk })
      : null;
  const app = dashboardRoutes({
    ...deps,
    ...(desk ? { deskPanel: desk.panel, deskReader: desk.reader } : {}),
    ...(desk && deps.evidence
      ? { deskDownloads: { ...DESK_DOWNLOADS, ...(deps.bundle ? {} : { bundle: API_DOWNLOADS.bundle }) } }
      : {}),
  });
  if (desk) app.route("/", desk.routes);
  if (deps.finding) app.route("/", findingPageRoutes({ finding: deps.finding, reader: deps.reader }));
  app.get("/docs", acceptQuery(), (c) => c.html(<DocsPage doc={deps.documents.openApi} />));
  // Rendered once: the text is fixed for the life of the process.
  const codebook = codebookHtml(deps.documents.codebook);
  app.get("/codebook", acceptQuery(), (c) => renderPage(c, 200, <CodebookPage html={codebook} />));
  // What a page route refuses (an unknown parameter, a form from another site) or fails on is a
  // page for a browser, which asks for text/html first; a program still gets the problem document.
  app.onError(createErrorHandler(deps.log, problemPage));
  return app;
}

/** The pages as a whole app (the pages Lambda): problem+json for unknown paths, as the API. */
export function pagesApp(deps: PageRoutesDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.use(answerHeaders());
  app.notFound(notFoundHandler);
  app.route("/", pageRoutes(deps));
  return app;
}
