import { type DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { DESK_SESSIONS_KEYS, DESK_SESSIONS_TTL } from "../../store/table-design.js";

/**
 * Sessions ended before their time. A session cookie is self-contained (signed, ≤ 12 h), so
 * sign-out alone would only ask this browser to forget it: a copy would still work. Each
 * sign-out leaves a record of the session's id until the session would have expired anyway.
 */
export interface SessionRevocations {
  /** Ends the session `id` for good; the record may go once `until` (epoch ms) has passed. */
  revoke(id: string, until: number): Promise<void>;
  isRevoked(id: string): Promise<boolean>;
}

/**
 * Revocations in their own DynamoDB table, one item per ended session, removed by the table's
 * TTL (`expiresAt`, epoch seconds) after the session's own expiry: the table never grows past
 * the sessions ended in the last 12 hours. The pages may put and get an item, nothing else.
 */
export class DynamoSessionRevocations implements SessionRevocations {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  async revoke(id: string, until: number): Promise<void> {
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          [DESK_SESSIONS_KEYS.partitionKey]: { S: id },
          [DESK_SESSIONS_TTL]: { N: String(Math.ceil(until / 1000)) },
        },
      }),
    );
  }

  async isRevoked(id: string): Promise<boolean> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { [DESK_SESSIONS_KEYS.partitionKey]: { S: id } },
        // Right after a sign-out, on any instance: a copied cookie must not outrun the record.
        ConsistentRead: true,
        ProjectionExpression: DESK_SESSIONS_KEYS.partitionKey,
      }),
    );
    return out.Item !== undefined;
  }
}
