import { Hono } from "hono";
import type { Logger } from "../../log.js";
import { DocsPage } from "../pages/docs-page.js";
import { acceptQuery } from "../params.js";
import { createErrorHandler, notFoundHandler } from "../problem.js";
import { type DashboardDeps, dashboardRoutes } from "./dashboard.js";
import { findingPageRoutes } from "./finding-pages.js";

export interface PageRoutesDeps extends DashboardDeps {
  /** The OpenAPI document /docs renders (see MetaRoutesDeps.openApi). */
  openApi: Record<string, unknown>;
}

/**
 * The pages people read: the dashboard (`/`, `/view/{id}`) and `/docs`. Mounted beside the
 * JSON API by the local server; in AWS they are a Lambda of their own, so the API Lambda
 * carries no JSX, no page code and no document renderer.
 */
export function pageRoutes(deps: PageRoutesDeps): Hono {
  const app = dashboardRoutes(deps);
  if (deps.finding) app.route("/", findingPageRoutes({ finding: deps.finding, reader: deps.reader }));
  app.get("/docs", acceptQuery(), (c) => c.html(<DocsPage doc={deps.openApi} />));
  return app;
}

/** The pages as a whole app (the pages Lambda): problem+json for errors and unknown paths, as the API. */
export function pagesApp(deps: PageRoutesDeps & { log: Logger }): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.notFound(notFoundHandler);
  app.route("/", pageRoutes(deps));
  return app;
}
