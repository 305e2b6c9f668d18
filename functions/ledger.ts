import { type DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { Hono } from "hono";
import { NotFoundError } from "./errors.js";
import { createExportParts } from "./export/export-parts.js";
import { incidentCitation } from "./export/incident-citation.js";
import { createApp } from "./http/app.js";
import type { Authenticator } from "./http/auth.js";
import type { PageRoutesDeps } from "./http/routes/site.js";
import { IncidentReader, type Settle } from "./incident-reader.js";
import { LogStore } from "./log/log-store.js";
import { LogTiles } from "./log/log-tiles.js";
import type { Logger } from "./log.js";
import { Projector } from "./projector/projector.js";
import type { Item } from "./store/commit-item.js";
import { EventStore } from "./store/event-store.js";
import type { TableNames } from "./store/table-design.js";
import { ViewStore } from "./store/view-store.js";

export interface LedgerOptions {
  db: DynamoDBClient;
  tables: TableNames;
  log: Logger;
  onCommit?: (item: Item) => void;
  now?: () => string;
  /** What a read waits for first (the local stream's pending projections). */
  settle?: Settle;
  /** The transparency log's verifier key, served at /log/vkey (local key or KMS public key). */
  logVerifierKey?: () => Promise<string>;
  /** How long a proof asked with `wait=true` waits for its event (default 10 s). */
  proofWaitMs?: number;
  /** The exports function's URL (AWS): the API then redirects export downloads there. */
  exportsUrl?: string;
}

/** The archive's parts, wired once; Lambda entries, the local server and tests all start here. */
export function createLedger(options: LedgerOptions) {
  const { db, tables, log } = options;
  const events = new EventStore({
    db,
    tables,
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const views = new ViewStore(db, tables.views);
  const projector = new Projector(events, views);
  // The transparency log's table (functions/log): the sequencer writes it, routes read it.
  const logStore = new LogStore(db, tables.log ?? "incident-ledger-log");
  const transparency = {
    logStore,
    logTiles: new LogTiles(logStore),
    findEvent: (incidentId: string, eventId: string) => events.findEvent(incidentId, eventId),
    ...(options.proofWaitMs !== undefined ? { maxWaitMs: options.proofWaitMs } : {}),
    verifierKey:
      options.logVerifierKey ??
      (() => Promise.reject(new NotFoundError("this archive is not configured with a log verifier key"))),
  };
  const reader = new IncidentReader(events, views, options.settle);
  // Feed, exports and releases (functions/export): read the log and the events, write releases.
  const exportParts = createExportParts({
    db,
    eventsTable: tables.events,
    logTable: logStore.table,
    log: logStore,
    reader,
    ...(options.exportsUrl ? { streamedAt: options.exportsUrl } : {}),
  });
  const checkStore = async () => {
    // A read of a key that never exists: needs no permission beyond what the API already has.
    await db.send(
      new GetItemCommand({
        TableName: tables.events,
        Key: { incidentId: { S: "-health-" }, version: { N: "0" } },
      }),
    );
  };
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
  });
  // The JSON API. The pages (functions/http/routes/site.tsx) are mounted only where asked for:
  // the API Lambda carries none of them, the local server passes them in.
  const app = (authenticate: Authenticator, extras: { openApi: Record<string, unknown>; pages?: Hono }) =>
    createApp({
      events,
      views,
      reader,
      authenticate,
      log,
      checkStore,
      exports: exportParts,
      transparency,
      ...extras,
    });
  return {
    events,
    views,
    projector,
    reader,
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
