import { Hono } from "hono";
import type { IncidentReader } from "../incident-reader.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Authenticator } from "./auth.js";
import { createErrorHandler, notFoundHandler } from "./problem.js";
import { eventRoutes } from "./routes/events.js";
import { incidentRoutes } from "./routes/incidents.js";
import { metaRoutes } from "./routes/meta.js";

export interface AppDeps {
  events: EventStore;
  views: ViewStore;
  reader: IncidentReader;
  authenticate: Authenticator;
  log: Logger;
  checkStore: () => Promise<void>;
  /** The OpenAPI document /openapi.json answers (see MetaRoutesDeps.openApi). */
  openApi: Record<string, unknown>;
  /** Extra routes mounted at / (the dashboard pages and /docs, locally). */
  pages?: Hono;
}

/** The whole HTTP surface, built from its dependencies: the same app runs in Lambda and locally. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    // One structured line per request: what a log search needs, never the body or the token.
    deps.log.info("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });
  app.notFound(notFoundHandler);
  app.route("/", metaRoutes(deps));
  app.route("/", eventRoutes(deps));
  app.route("/", incidentRoutes(deps));
  if (deps.pages) app.route("/", deps.pages);
  return app;
}
