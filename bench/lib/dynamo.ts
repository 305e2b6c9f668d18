import type { AddressInfo } from "node:net";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";

export interface Dynalite {
  endpoint: string;
  /** A client configured as the archive configures its own. */
  client(): DynamoDBClient;
  close(): Promise<void>;
}

/** An in-memory dynalite in this process, on a free loopback port (as the local server runs it). */
export async function startDynalite(): Promise<Dynalite> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: DynamoDBClient[] = [];
  return {
    endpoint,
    client() {
      const db = createDynamoClient(endpoint);
      clients.push(db);
      return db;
    },
    async close() {
      for (const db of clients) db.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A table with the events table's key schema (pk `incidentId` S, sk `version` N): the raw baseline's. */
export function rawEventsTable(name: string): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "incidentId", AttributeType: "S" },
      { AttributeName: "version", AttributeType: "N" },
    ],
    KeySchema: [
      { AttributeName: "incidentId", KeyType: "HASH" },
      { AttributeName: "version", KeyType: "RANGE" },
    ],
  };
}

/**
 * Creates a table and waits until it is ACTIVE: dynalite makes it so on a timer (even with
 * createTableMs 0), and under load a request that comes first meets ResourceNotFoundException.
 */
export async function createTable(db: DynamoDBClient, input: CreateTableCommandInput): Promise<void> {
  await db.send(new CreateTableCommand(input));
  const TableName = input.TableName;
  while ((await db.send(new DescribeTableCommand({ TableName }))).Table?.TableStatus !== "ACTIVE") {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
