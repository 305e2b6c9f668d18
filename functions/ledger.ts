import type { Hono } from "hono";
import { NotFoundError } from "./errors.js";
import type { ProofBundleDeps } from "./evidence/proof-bundle.js";
import type { ExportBuilds, StoredExports } from "./export/export-files.js";
import { createExportParts } from "./export/export-parts.js";
import { incidentCitation } from "./export/incident-citation.js";
import { createApp } from "./http/app.js";
import { asAsync } from "./http/async-auth.js";
import type { Authenticator } from "./http/auth.js";
import { dataRoutes } from "./http/data-routes.js";
import { DynamoSessionRevocations } from "./http/desk/session-revocations.js";
import type { PageRoutesDeps } from "./http/routes/site.js";
import type { SiteDocuments } from "./http/site-documents.js";
import { createLedgerCore, type LedgerCoreOptions } from "./ledger-core.js";
import { LogStore } from "./log/log-store.js";
import { LogTiles } from "./log/log-tiles.js";
import { timestampsOf } from "./log/timestamp-store.js";
import type { Logger } from "./logger.js";
import { disclosureExportRoutes, type ReaderAuthenticator } from "./people/people-routes.js";
import { Projector } from "./projector/projector.js";
import { deskSessionsTable } from "./store/table-design.js";

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
  /** The exports bucket (AWS): built exports are redirected to a presigned GET of their object. */
  storedExports?: StoredExports;
  /** Starts a release's export builds (AWS: the builder function, invoked asynchronously). */
  exportBuilds?: ExportBuilds;
  /**
   * The archive's public origin (LEDGER_PUBLIC_URL; in AWS the stack's URL): release links,
   * citations and every other absolute URL are built on it, never on a request's Host. A
   * function where it is known only once the server listens (a local port 0).
   */
  publicUrl?: string | (() => string);
  /** The DER RFC 3161 response over the checkpoint of a tree size (proof bundles), or null. */
  timestampCovering?: ProofBundleDeps["timestampCovering"];
}

/** The origin of a configured public URL, without a trailing slash. */
export function publicOrigin(url: LedgerOptions["publicUrl"]): () => string {
  const of = (text: string) => new URL(text).origin;
  if (typeof url === "function") return () => of(url());
  const fixed = of(url ?? DEFAULT_PUBLIC_URL);
  return () => fixed;
}

/** Where a ledger given no public URL says it is: the local server's default address. */
export const DEFAULT_PUBLIC_URL = "http://localhost:3000";

/** The archive's parts, wired once; Lambda entries, the local server and tests all start here. */
export function createLedger(options: LedgerOptions) {
  const { db, tables, log } = options;
  const publicUrl = publicOrigin(options.publicUrl);
  // This server's own upload URLs (a local blob store) start at the origin every other link does.
  const evidenceOptions = options.evidence ? { publicUrl, ...options.evidence } : undefined;
  const core = createLedgerCore({ ...options, ...(evidenceOptions ? { evidence: evidenceOptions } : {}) });
  const { events, views, reader, editorial, finding } = core;
  const projector = new Projector(events, views, {
    editorial,
    afterSave: finding ? (id, state, named) => finding.update(id, state, named) : undefined,
  });
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
  // Feed, exports and releases (functions/export): read the log and the events, write releases.
  const exportParts = createExportParts({
    db,
    eventsTable: tables.events,
    logTable: logStore.table,
    log: logStore,
    // Exports are a function of the tree size alone: without the other incidents' links (current, not of the cut).
    reader: {
      summary: (incidentId, query) => reader.ownSummary(incidentId, query),
      currentSummaries: (incidentIds) => views.getSummariesJson(incidentIds),
    },
    ...(options.exportsUrl ? { streamedAt: options.exportsUrl } : {}),
    ...(options.storedExports ? { stored: options.storedExports } : {}),
    ...(options.exportBuilds ? { builds: options.exportBuilds } : {}),
  });
  // The public disclosures (functions/people): streamed here, or redirected to the exports function.
  const disclosureExport = () =>
    disclosureExportRoutes({
      events,
      disclosures: core.disclosures,
      log: logStore,
      leafIndex: async (incidentId, version) =>
        (await logStore.incidentIndexes(incidentId, { after: version - 1, last: version })).get(version),
      ...(options.exportsUrl ? { streamedAt: options.exportsUrl } : {}),
    });
  // What a proof bundle carries beside the log: the evidence bytes, a time-stamp, the audit of a
  // restricted read. The API's bundles and the desk's (by session) are built alike.
  const bundle = {
    ...(core.blobs ? { blobs: core.blobs } : {}),
    timestampCovering: options.timestampCovering ?? coveringTimestamp(logStore),
    audit: core.audit,
    publicUrl,
  };
  // Each incident page cites the incident by the latest release that holds it.
  const citation = (incident: { incidentId: string; title: string | null; version: number }) =>
    incidentCitation({ releases: exportParts.releases, log: logStore }, incident, publicUrl());
  /** `readerAuth`: who reads a page (restricted victims' values for a restricted-reader). */
  const pageDeps = (documents: SiteDocuments, readerAuth?: ReaderAuthenticator): PageRoutesDeps => ({
    log,
    reader,
    events,
    views,
    citation,
    logStore,
    documents,
    disclosures: core.disclosureReader,
    ...(readerAuth ? { readerAuth } : {}),
    // The desk's posts take the API's own write path (sealing personal data first, the same checks).
    writes: core.writes,
    // The desk's upload form posts its bytes through the API's own evidence routes.
    ...(evidenceOptions ? { evidence: { ...evidenceOptions, audit: core.audit } } : {}),
    // A signed-in restricted-reader's proof bundle, by session, holds the restricted bytes too.
    bundle: { ...transparency, ...bundle, log },
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
          ? [
              dataRoutes({
                exports: exportParts,
                transparency,
                authenticate,
                openApi: extras.openApi,
                log,
                publicUrl,
                bundle: { ...bundle, readers: options.evidence?.readers ?? asAsync(authenticate) },
              }),
              disclosureExport(),
            ]
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
    editorial,
    /** The finding index (functions/finding), where a search table is configured. */
    finding,
    logStore,
    exports: exportParts,
    /** GET /export/disclosures.ndjson alone (the exports function mounts it beside the other exports). */
    disclosureExport,
    /** The desk's sessions ended by sign-out (functions/http/desk/session-revocations.ts). */
    deskRevocations: new DynamoSessionRevocations(db, deskSessionsTable(tables)),
    /** The public origin every absolute link is built on. */
    publicUrl,
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

/** The smallest time-stamped checkpoint holding this many leaves, with its token (proof bundles). */
function coveringTimestamp(logStore: LogStore): NonNullable<ProofBundleDeps["timestampCovering"]> {
  const timestamps = timestampsOf(logStore);
  return async (leaves) => {
    const found = await timestamps.covering(leaves);
    return found ? { treeSize: found.treeSize, token: found.token, tsa: found.tsa } : null;
  };
}
