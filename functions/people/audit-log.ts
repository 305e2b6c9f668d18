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

/** One restricted read of evidence bytes: who read which bytes, through what, when. */
export interface EvidenceRead {
  who: string;
  sha256: string;
  /** Where it was read: the route, or a proof bundle (then of which event). */
  via: string;
  at: string;
  /** The Range asked for, when only part of the bytes were. */
  range?: string;
  incidentId?: string;
  eventId?: string;
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

  /**
   * A read of restricted evidence, under `evidence#<sha256>` (no incident id has a `#`): the
   * bytes are read by hash, whichever incidents capture them, so their reads are kept together.
   */
  async recordEvidence(read: EvidenceRead): Promise<void> {
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          incidentId: { S: `evidence#${read.sha256}` },
          at: { S: `${read.at}#${randomUUID()}` },
          who: { S: read.who },
          sha256: { S: read.sha256 },
          via: { S: read.via },
          ...(read.range ? { range: { S: read.range } } : {}),
          ...(read.incidentId ? { readIn: { S: read.incidentId } } : {}),
          ...(read.eventId ? { eventId: { S: read.eventId } } : {}),
        },
        ConditionExpression: "attribute_not_exists(#at)",
        ExpressionAttributeNames: { "#at": "at" },
      }),
    );
  }
}
