import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import {
  ACTIVITY_INDEX,
  ACTIVITY_INDEX_ATTRIBUTES,
  AUDIT_KEYS,
  CLAIMS_KEYS,
  DESK_SESSIONS_KEYS,
  DISCLOSURES_KEYS,
  deskSessionsTable,
  EVENTS_KEYS,
  LOG_KEYS,
  peopleTables,
  SEARCH_KEYS,
  type TableNames,
  VIEWS_KEYS,
} from "./table-design.js";

/** The local twin of the CDK tables (infra/ uses the same table-design constants). */
export function tableDefinitions(names: TableNames): CreateTableCommandInput[] {
  const definitions: CreateTableCommandInput[] = [
    {
      TableName: names.events,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: EVENTS_KEYS.partitionKey, AttributeType: "S" },
        { AttributeName: EVENTS_KEYS.sortKey, AttributeType: "N" },
      ],
      KeySchema: [
        { AttributeName: EVENTS_KEYS.partitionKey, KeyType: "HASH" },
        { AttributeName: EVENTS_KEYS.sortKey, KeyType: "RANGE" },
      ],
    },
    {
      TableName: names.claims,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: CLAIMS_KEYS.partitionKey, AttributeType: "S" }],
      KeySchema: [{ AttributeName: CLAIMS_KEYS.partitionKey, KeyType: "HASH" }],
    },
    {
      TableName: names.views,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: VIEWS_KEYS.partitionKey, AttributeType: "S" },
        { AttributeName: ACTIVITY_INDEX.partitionKey, AttributeType: "S" },
        { AttributeName: ACTIVITY_INDEX.sortKey, AttributeType: "S" },
      ],
      KeySchema: [{ AttributeName: VIEWS_KEYS.partitionKey, KeyType: "HASH" }],
      GlobalSecondaryIndexes: [
        {
          IndexName: ACTIVITY_INDEX.name,
          KeySchema: [
            { AttributeName: ACTIVITY_INDEX.partitionKey, KeyType: "HASH" },
            { AttributeName: ACTIVITY_INDEX.sortKey, KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: [...ACTIVITY_INDEX_ATTRIBUTES] },
        },
      ],
    },
  ];
  if (names.log) definitions.push(pairKeyed(names.log, LOG_KEYS, "N"));
  // The people tables (functions/people): sealed values and the audit of restricted reads.
  const people = peopleTables(names);
  definitions.push(pairKeyed(people.disclosures, DISCLOSURES_KEYS), pairKeyed(people.audit, AUDIT_KEYS));
  if (names.search) definitions.push(pairKeyed(names.search, SEARCH_KEYS));
  // The desk's revoked sessions (functions/http/desk/session-revocations.ts); TTL is AWS's, not dynalite's.
  definitions.push({
    TableName: deskSessionsTable(names),
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [{ AttributeName: DESK_SESSIONS_KEYS.partitionKey, AttributeType: "S" }],
    KeySchema: [{ AttributeName: DESK_SESSIONS_KEYS.partitionKey, KeyType: "HASH" }],
  });
  return definitions;
}

/** Creates whichever of the tables is missing; returns the names it created. */
export async function createTables(db: DynamoDBClient, names: TableNames): Promise<string[]> {
  const created: string[] = [];
  for (const definition of tableDefinitions(names)) {
    try {
      await db.send(new DescribeTableCommand({ TableName: definition.TableName }));
    } catch (error) {
      if ((error as Error).name !== "ResourceNotFoundException") throw error;
      await db.send(new CreateTableCommand(definition));
      created.push(definition.TableName as string);
    }
  }
  return created;
}

/** A table keyed by a string partition key and a sort key (a string, or a number). */
function pairKeyed(
  name: string,
  keys: { partitionKey: string; sortKey: string },
  sortType: "S" | "N" = "S",
): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: keys.partitionKey, AttributeType: "S" },
      { AttributeName: keys.sortKey, AttributeType: sortType },
    ],
    KeySchema: [
      { AttributeName: keys.partitionKey, KeyType: "HASH" },
      { AttributeName: keys.sortKey, KeyType: "RANGE" },
    ],
  };
}
