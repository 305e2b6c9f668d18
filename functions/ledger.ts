import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { Hono } from "hono";
import { NotFoundError } from "./errors.js";
import type { ExportBuilds, StoredExports } from "./export/export-files.js";
import { createExportParts } from "./export/export-parts.js";
import { incidentCitation } from "./export/incident-citation.js";
import { createApp } from "./http/app.js";
import type { Authenticator } from "./http/auth.js";
import { dataRoutes } from "./http/data-routes.js";
import type { PageRoutesDeps } from "./http/routes/site.js";
import { createLedgerCore, type LedgerCoreOptions } from "./ledger-core.js";
import { LogStore } from "./log/log-store.js";
import { LogTiles } from "./log/log-tiles.js";
import type { Logger } from "./log.js";
import { Projector } from "./projector/projector.js";
import { GroupedViewStore } from "./store/grouped-view-store.js";

/** Which route groups an app mounts: the API Lambda's, the data Lambda's (default: both). */
export type RouteGroup = "api" | "data";

export interface LedgerOptions extends LedgerCoreOptions {
  log: Logger;
  /** The transparency log's verifier key, served at /log/vkey (local key or KMS public key). */
  logVerifierKey?: () => Promise<string>;
  /** How long a proof asked with `wait=true` waits for its event (default 10 s). */
  proofWaitMs?: number;
  /** The exports function's URL (AWS): the API then redirects export downloads there. */
  exportsUrl?: string;
  /**
   * This process is the one writer of views and log records (the local feed thread): they go out
   * in batch writes (GroupedViewStore, LogStore). Never in AWS, where projectors may overlap.
   */
  feedBatchWrites?: boolean;
  /** With feedBatchWrites: each view item once it is stored. */
  onViewSaved?: (item: Record<string, AttributeValue>) => void;
  /** The exports bucket (AWS): built exports are redirected to a presigned GET of their object. */
  storedExports?: StoredExports;
  /** Starts a release's export builds (AWS: the builder function, invoked asynchronously). */
  exportBuilds?: ExportBuilds;
}

/** The archive's parts, wired once; Lambda entries, the local server and tests all start here. */
export function createLedger(options: LedgerOptions) {
  const { db, tables, log } = options;
  const core = createLedgerCore({
    ...options,
    ...(options.feedBatchWrites
      ? { views: (db, table) => new GroupedViewStore(db, table, options.onViewSaved) }
      : {}),
  });
  const { events, views, reader } = core;
  const { finding } = core;
  const projector = new Projector(
    events,
    views,
    finding ? (id, state) => finding.update(id, state) : undefined,
  );
  // The transparency log's table (functions/log): the sequencer writes it, routes read it.
  const logStore = new LogStore(db, tables.log ?? "incident-ledger-log", {
    batchWrites: options.feedBatchWrites === true,
  });
  const transparency = {
    logStore,
    logTiles: new LogTiles(logStore),
    findEvent: (incidentId: string, eventId: string) => events.findEvent(incidentId, eventId),
    ...(options.proofWaitMs !== undefined ? { maxWaitMs: options.proofWaitMs } : {}),
    verifierKey:
      options.logVerifierKey ??
      (() => Promise.reject(new NotFoundError("this archive is not configured with a log verifier key"))),
  };
  // Feed, exports and releases (functions/export): read the log and the events, write releases.
  const exportParts = createExportParts({
    db,
    eventsTable: tables.events,
    logTable: logStore.table,
    log: logStore,
    reader,
    ...(options.exportsUrl ? { streamedAt: options.exportsUrl } : {}),
    ...(options.storedExports ? { stored: options.storedExports } : {}),
    ...(options.exportBuilds ? { builds: options.exportBuilds } : {}),
  });
  // Each incident page cites the incident by the latest release that holds it.
  const citation = (
    incident: { incidentId: string; title: string | null; version: number },
    origin: string,
  ) => incidentCitation({ releases: exportParts.releases, log: logStore }, incident, origin);
  const pageDeps = (openApi: Record<string, unknown>): PageRoutesDeps => ({
    reader,
    events,
    views,
    citation,
    logStore,
    openApi,
    ...(finding ? { finding } : {}),
  });
  // The JSON API: the groups asked for (default both), then the pages where passed in
  // (functions/http/routes/site.tsx): the Lambdas carry none of them, the local server does.
  const app = (
    authenticate: Authenticator,
    extras: { openApi: Record<string, unknown>; pages?: Hono; groups?: readonly RouteGroup[] },
  ) => {
    const groups = extras.groups ?? ["api", "data"];
    return createApp({
      log,
      routes: [
        ...(groups.includes("api") ? [core.routes(authenticate)] : []),
        ...(groups.includes("data")
          ? [dataRoutes({ exports: exportParts, transparency, authenticate, openApi: extras.openApi, log })]
          : []),
        ...(extras.pages ? [extras.pages] : []),
      ],
    });
  };
  return {
    events,
    views,
    projector,
    reader,
    /** The finding index (functions/finding), where a search table is configured. */
    finding,
    log: logStore,
    exports: exportParts,
    app,
    /**
     * What the pages people read (dashboard, /docs) need: hand it to `pageRoutes` or `pagesApp`
     * (functions/http/routes/site.tsx). Only the deps live here, so that importing the ledger
     * (as the API Lambda does) bundles no page code.
     */
    pageDeps,
  };
}

export type Ledger = ReturnType<typeof createLedger>;
