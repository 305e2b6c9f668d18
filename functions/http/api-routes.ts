import { Hono } from "hono";
import type { SearchIndex } from "../finding/search-index.js";
import type { IncidentReader } from "../incident-reader.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Authenticator } from "./auth.js";
import { eventRoutes } from "./routes/events.js";
import { findingRoutes } from "./routes/finding.js";
import { incidentRoutes } from "./routes/incidents.js";
import { metaRoutes } from "./routes/meta.js";

export interface ApiRoutesDeps {
  events: EventStore;
  views: ViewStore;
  reader: IncidentReader;
  authenticate: Authenticator;
  checkStore: () => Promise<void>;
  /** The finding index (search, filters, source pages); absent where no search table is configured. */
  finding?: SearchIndex;
}

/** The API Lambda's routes: /health, the incidents, their events and the append. */
export function apiRoutes(deps: ApiRoutesDeps): Hono {
  const app = new Hono();
  app.route("/", metaRoutes(deps));
  app.route("/", eventRoutes(deps));
  app.route("/", incidentRoutes(deps));
  if (deps.finding) app.route("/", findingRoutes({ finding: deps.finding, reader: deps.reader }));
  return app;
}
