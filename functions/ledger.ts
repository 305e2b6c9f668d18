import { type DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { Hono } from "hono";
import { createApp } from "./http/app.js";
import type { Authenticator } from "./http/auth.js";
import { IncidentReader, type Settle } from "./incident-reader.js";
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
  const reader = new IncidentReader(events, views, options.settle);
  const checkStore = async () => {
    // A read of a key that never exists: needs no permission beyond what the API already has.
    await db.send(
      new GetItemCommand({
        TableName: tables.events,
        Key: { incidentId: { S: "-health-" }, version: { N: "0" } },
      }),
    );
  };
  // The JSON API. The pages (functions/http/pages/site.tsx) are mounted only where asked for:
  // the API Lambda carries none of them, the local server passes them in.
  const app = (authenticate: Authenticator, extras: { openApi: Record<string, unknown>; pages?: Hono }) =>
    createApp({ events, views, reader, authenticate, log, checkStore, ...extras });
  return { events, views, projector, reader, app };
}

export type Ledger = ReturnType<typeof createLedger>;
