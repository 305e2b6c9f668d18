import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { EventStore as CastoreEventStore, EventType, isEventAlreadyExistsError } from "@castore/core";
import {
  DynamoDBSingleTableEventStorageAdapter,
  EVENT_TABLE_EVENT_STORE_ID_KEY,
  EVENT_TABLE_INITIAL_EVENT_INDEX_NAME,
  EVENT_TABLE_PK,
  EVENT_TABLE_SK,
  EVENT_TABLE_TIMESTAMP_KEY,
} from "@castore/event-storage-adapter-dynamodb";
import { createTable } from "./dynamo.js";

/**
 * The peer: Castore's event store on its single-table DynamoDB adapter, over the same dynalite.
 * Its table has the key schema the adapter's README asks for: `aggregateId` (S) / `version` (N),
 * and the `initialEvents` index on `eventStoreId` / `timestamp`, keys only.
 */
export async function createCastoreTable(db: DynamoDBClient, tableName: string): Promise<void> {
  await createTable(db, {
    TableName: tableName,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: EVENT_TABLE_PK, AttributeType: "S" },
      { AttributeName: EVENT_TABLE_SK, AttributeType: "N" },
      { AttributeName: EVENT_TABLE_EVENT_STORE_ID_KEY, AttributeType: "S" },
      { AttributeName: EVENT_TABLE_TIMESTAMP_KEY, AttributeType: "S" },
    ],
    KeySchema: [
      { AttributeName: EVENT_TABLE_PK, KeyType: "HASH" },
      { AttributeName: EVENT_TABLE_SK, KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: EVENT_TABLE_INITIAL_EVENT_INDEX_NAME,
        KeySchema: [
          { AttributeName: EVENT_TABLE_EVENT_STORE_ID_KEY, KeyType: "HASH" },
          { AttributeName: EVENT_TABLE_TIMESTAMP_KEY, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "KEYS_ONLY" },
      },
    ],
  });
}

const opened = new EventType<"IncidentOpened", Record<string, unknown>>({ type: "IncidentOpened" });
const reported = new EventType<"Reported", Record<string, unknown>>({ type: "Reported" });

interface IncidentAggregate {
  aggregateId: string;
  version: number;
  reports: number;
}

/** A deliberately cheap reducer (a count): the comparison is of the stores, not of the folds. */
export function castoreStore(db: DynamoDBClient, tableName: string) {
  return new CastoreEventStore({
    eventStoreId: "INCIDENTS",
    eventTypes: [opened, reported],
    reducer: (aggregate: IncidentAggregate | undefined, event): IncidentAggregate => ({
      aggregateId: event.aggregateId,
      version: event.version,
      reports: (aggregate?.reports ?? 0) + (event.type === "Reported" ? 1 : 0),
    }),
    eventStorageAdapter: new DynamoDBSingleTableEventStorageAdapter({ tableName, dynamoDBClient: db }),
  });
}

export type CastoreStore = ReturnType<typeof castoreStore>;

/** Castore reports a lost race as EventAlreadyExistsError (by its `code`, as Castore checks it). */
export const isCastoreConflict = isEventAlreadyExistsError;
