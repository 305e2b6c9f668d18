import { Hono } from "hono";
import type { EvidenceChecks } from "../evidence/evidence-checks.js";
import { type EvidenceRouteDeps, evidenceRoutes } from "../evidence/evidence-routes.js";
import type { SearchIndex } from "../finding/search-index.js";
import type { IncidentReader, PendingProjections } from "../incident-reader.js";
import type { AppendRequest, AppendResult, EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Authenticator } from "./auth.js";
import { eventRoutes } from "./routes/events.js";
import { findingRoutes } from "./routes/finding.js";
import { incidentListRoutes } from "./routes/incident-lists.js";
import { incidentRoutes } from "./routes/incidents.js";
import { metaRoutes } from "./routes/meta.js";

export interface ApiRoutesDeps {
  events: EventStore;
  views: ViewStore;
  reader: IncidentReader;
  authenticate: Authenticator;
  checkStore: () => Promise<void>;
  /** What an append of a link waits for where projection runs in this process (routes/events.ts). */
  pending?: PendingProjections;
  /** The sealing append path (functions/people/sealed-append.ts); default the event store's. */
  append?: (request: AppendRequest) => Promise<AppendResult>;
  /** More routes of the API Lambda (the people's disclosures: functions/people/people-routes.ts). */
  extra?: readonly Hono[];
  /** The evidence routes and the append's evidence checks, when the archive keeps evidence. */
  evidence?: { routes: Omit<EvidenceRouteDeps, "authenticate">; checks: EvidenceChecks };
  /** The finding index (search, filters, source pages); absent where no search table is configured. */
  finding?: SearchIndex;
}

/** The API Lambda's routes: /health, the incidents, their events and the append. */
export function apiRoutes(deps: ApiRoutesDeps): Hono {
  const app = new Hono();
  app.route("/", metaRoutes(deps));
  const { evidence, ...rest } = deps;
  app.route("/", eventRoutes({ ...rest, ...(evidence ? { evidence: evidence.checks } : {}) }));
  if (evidence) app.route("/", evidenceRoutes({ ...evidence.routes, authenticate: deps.authenticate }));
  app.route("/", incidentRoutes(deps));
  app.route("/", incidentListRoutes(deps));
  for (const routes of deps.extra ?? []) app.route("/", routes);
  if (deps.finding) app.route("/", findingRoutes({ finding: deps.finding, reader: deps.reader }));
  return app;
}
