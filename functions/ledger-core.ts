import { type DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { EditorialIndex } from "./editorial/editorial-index.js";
import { evidenceChecks } from "./evidence/evidence-checks.js";
import type { EvidenceOptions } from "./evidence/evidence-routes.js";
import { SearchIndex } from "./finding/search-index.js";
import { apiRoutes } from "./http/api-routes.js";
import type { Authenticator } from "./http/auth.js";
import type { EventRoutesDeps } from "./http/routes/events.js";
import { incidentCategories } from "./incident-categories.js";
import { IncidentReader, type PendingProjections } from "./incident-reader.js";
import type { Logger } from "./logger.js";
import { AuditLog } from "./people/audit-log.js";
import { DisclosureReader } from "./people/disclosure-reader.js";
import { DisclosureStore } from "./people/disclosure-store.js";
import { disclosureRoutes, type ReaderAuthenticator } from "./people/people-routes.js";
import { SealedAppend } from "./people/sealed-append.js";
import type { Item } from "./store/commit-item.js";
import { EventStore } from "./store/event-store.js";
import { peopleTables, type TableNames } from "./store/table-design.js";
import { ViewStore } from "./store/view-store.js";

/** How long /health waits for the store before it answers 503. */
const HEALTH_TIMEOUT_MS = 3_000;

export interface LedgerCoreOptions {
  db: DynamoDBClient;
  tables: TableNames;
  onCommit?: (item: Item) => void;
  now?: () => string;
  /** What a read waits for first (the local stream's pending projections). */
  pendingProjections?: PendingProjections;
  /** Salts for sealed values (default: 16 random bytes each); tests may fix them. */
  salt?: () => string;
  /** The evidence blob store and its routes' settings (functions/evidence); none: no evidence routes. */
  evidence?: EvidenceOptions;
  /** Makes the store's files forget what an erasure or a discard overwrote in a table (locally: LevelDB compacts it). */
  forgetOverwritten?: (table: string) => Promise<void>;
  /** Where restricted reads are logged for the alarm on their bursts (default: the evidence routes' log, else none). */
  log?: Logger;
}

/**
 * The events, the views and what reads them: all the API Lambda needs. Apart from
 * createLedger (ledger.ts) so that its bundle carries none of the log, export or page code.
 */
export function createLedgerCore(options: LedgerCoreOptions) {
  const { db, tables } = options;
  const views = new ViewStore(db, tables.views);
  const events: EventStore = new EventStore({
    db,
    tables,
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
    ...(options.now ? { now: options.now } : {}),
    categories: incidentCategories(() => events, views),
  });
  const editorial = new EditorialIndex(db, tables.views);
  const reader = new IncidentReader(events, views, options.pendingProjections, editorial);
  // The finding index beside the views (functions/finding): written after each view, read by search.
  const finding = tables.search
    ? // The stored view, never a read that waits for projections: the projector calls this
      // while projecting, and locally a read would wait for that very projection.
      new SearchIndex(
        db,
        tables.search,
        (id) => views.getSummary(id),
        (id, eventId) => events.findEvent(id, eventId),
        (id, after) => events.events(id, { after }),
      )
    : undefined;
  const checkStore = async () => {
    // A read of a key that never exists: needs no permission beyond what the API already has.
    // A store that takes the connection and never answers is as down as one that refuses it.
    try {
      await db.send(
        new GetItemCommand({
          TableName: tables.events,
          Key: { incidentId: { S: "-health-" }, version: { N: "0" } },
        }),
        { abortSignal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) },
      );
    } catch (error) {
      if ((error as Error).name === "AbortError" || (error as Error).name === "TimeoutError") {
        throw new Error(`no answer within ${HEALTH_TIMEOUT_MS / 1000} s`);
      }
      throw error;
    }
  };
  // Sealed values beside the chain (functions/people): written before the event that commits to them.
  const people = peopleTables(tables);
  const disclosures = new DisclosureStore(db, people.disclosures, options.forgetOverwritten);
  // Every restricted read is recorded here: of disclosures, and of evidence bytes.
  const audit = new AuditLog(db, people.audit);
  const evidence = options.evidence
    ? {
        routes: { ...options.evidence, audit },
        checks: evidenceChecks(options.evidence.store, events, views),
      }
    : undefined;
  const log = options.log ?? options.evidence?.log;
  const disclosureReader = new DisclosureReader(disclosures, audit, log ? { log } : {});
  const sealed = new SealedAppend({
    events,
    disclosures,
    ...(options.salt ? { salt: options.salt } : {}),
    retracted: async (incidentId) => {
      const state = await reader.stateAt(incidentId, { at: "current" });
      return new Set(state ? await reader.retracted(state) : []);
    },
  });
  const append = (request: Parameters<SealedAppend["append"]>[0]) => sealed.append(request);
  /**
   * What every write route takes, whoever the writer is: the API's append and the desk's forms
   * alike (the sealing append, the evidence and editorial checks, what a link waits for).
   */
  const writes: Omit<EventRoutesDeps, "authenticate"> = {
    events,
    append,
    reader,
    ...(evidence ? { evidence: evidence.checks } : {}),
    ...(options.pendingProjections ? { pending: options.pendingProjections } : {}),
  };
  /** `readerAuth`: who reads on a public GET (default: the writers' tokens, as locally). */
  const routes = (authenticate: Authenticator, readerAuth?: ReaderAuthenticator) =>
    apiRoutes({
      events,
      views,
      reader,
      authenticate,
      checkStore,
      append,
      ...(evidence ? { evidence } : {}),
      ...(options.pendingProjections ? { pending: options.pendingProjections } : {}),
      ...(finding ? { finding } : {}),
      extra: [
        disclosureRoutes({
          events,
          reader: disclosureReader,
          readerAuth: readerAuth ?? (async (c) => authenticate(c)),
        }),
      ],
    });
  return {
    events,
    views,
    reader,
    checkStore,
    routes,
    disclosures,
    disclosureReader,
    audit,
    append,
    writes,
    blobs: options.evidence?.store,
    editorial,
    finding,
  };
}
