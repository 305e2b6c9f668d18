import { type DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { SearchIndex } from "./finding/search-index.js";
import { apiRoutes } from "./http/api-routes.js";
import type { Authenticator } from "./http/auth.js";
import { IncidentReader, type Settle } from "./incident-reader.js";
import type { Item } from "./store/commit-item.js";
import { EventStore } from "./store/event-store.js";
import type { TableNames } from "./store/table-design.js";
import { ViewStore } from "./store/view-store.js";

export interface LedgerCoreOptions {
  db: DynamoDBClient;
  tables: TableNames;
  onCommit?: (item: Item) => void;
  now?: () => string;
  /** What a read waits for first (the local stream's pending projections). */
  settle?: Settle;
  /** Another view store (the local feed thread's GroupedViewStore, kept out of the API bundle). */
  views?: (db: DynamoDBClient, table: string) => ViewStore;
}

/**
 * The events, the views and what reads them: all the API Lambda needs. Apart from
 * createLedger (ledger.ts) so that its bundle carries none of the log, export or page code.
 */
export function createLedgerCore(options: LedgerCoreOptions) {
  const { db, tables } = options;
  const events = new EventStore({
    db,
    tables,
    ...(options.onCommit ? { onCommit: options.onCommit } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const views = options.views?.(db, tables.views) ?? new ViewStore(db, tables.views);
  const reader = new IncidentReader(events, views, options.settle);
  // The finding index beside the views (functions/finding): written after each view, read by search.
  const finding = tables.search
    ? new SearchIndex(db, tables.search, (id) => reader.summary(id, { at: "current" }))
    : undefined;
  const checkStore = async () => {
    // A read of a key that never exists: needs no permission beyond what the API already has.
    await db.send(
      new GetItemCommand({
        TableName: tables.events,
        Key: { incidentId: { S: "-health-" }, version: { N: "0" } },
      }),
    );
  };
  const routes = (authenticate: Authenticator) =>
    apiRoutes({ events, views, reader, authenticate, checkStore, ...(finding ? { finding } : {}) });
  return { events, views, reader, checkStore, routes, finding };
}
