import { Hono } from "hono";
import type { IncidentReader } from "../incident-reader.js";
import type { AppendRequest, AppendResult, EventStore } from "../store/event-store.js";
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
  /** The sealing append path (functions/people/sealed-append.ts); default the event store's. */
  append?: (request: AppendRequest) => Promise<AppendResult>;
  /** More routes of the API Lambda (the people's disclosures: functions/people/people-routes.ts). */
  extra?: readonly Hono[];
}

/** The API Lambda's routes: /health, the incidents, their events and the append. */
export function apiRoutes(deps: ApiRoutesDeps): Hono {
  const app = new Hono();
  app.route("/", metaRoutes(deps));
  app.route("/", eventRoutes(deps));
  app.route("/", incidentRoutes(deps));
  for (const routes of deps.extra ?? []) app.route("/", routes);
  return app;
}
