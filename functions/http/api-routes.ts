import { Hono } from "hono";
import type { IncidentReader, Settle } from "../incident-reader.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Authenticator } from "./auth.js";
import { eventRoutes } from "./routes/events.js";
import { incidentRoutes } from "./routes/incidents.js";
import { metaRoutes } from "./routes/meta.js";

export interface ApiRoutesDeps {
  events: EventStore;
  views: ViewStore;
  reader: IncidentReader;
  authenticate: Authenticator;
  checkStore: () => Promise<void>;
  /** What an append of a link waits for where projection runs in this process (routes/events.ts). */
  settle?: Settle;
}

/** The API Lambda's routes: /health, the incidents, their events and the append. */
export function apiRoutes(deps: ApiRoutesDeps): Hono {
  const app = new Hono();
  app.route("/", metaRoutes(deps));
  app.route("/", eventRoutes(deps));
  app.route("/", incidentRoutes(deps));
  return app;
}
