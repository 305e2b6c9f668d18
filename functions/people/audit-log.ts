import { randomUUID } from "node:crypto";
import { type DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";

/** One restricted read: who read which disclosures of which event, and when. */
export interface RestrictedRead {
  who: string;
  incidentId: string;
  eventId: string;
  pointers: readonly string[];
  /** Where it was read: the route, or the page. */
  via: string;
  at: string;
}

/**
 * The audit of restricted reads (CONTRACT.md "Roles"): a table of its own to which readers'
 * code may only add items (its grant is PutItem alone), so a reader cannot change or remove a
 * record of what they read; an operator reads it with any DynamoDB tool. Not log lines: those
 * are kept for a retention period and filtered by level, and a record of access must outlive both.
 * It holds pointers, never values.
 */
export class AuditLog {
  constructor(
    private readonly db: DynamoDBClient,
    readonly table: string,
  ) {}

  async record(read: RestrictedRead): Promise<void> {
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          incidentId: { S: read.incidentId },
          // Time first, so an operator's Query reads them in order; the suffix keeps two reads apart.
          at: { S: `${read.at}#${randomUUID()}` },
          who: { S: read.who },
          eventId: { S: read.eventId },
          pointers: { L: read.pointers.map((p) => ({ S: p })) },
          via: { S: read.via },
        },
        ConditionExpression: "attribute_not_exists(#at)",
        ExpressionAttributeNames: { "#at": "at" },
      }),
    );
  }
}
