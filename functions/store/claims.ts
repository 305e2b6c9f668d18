import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { isConditionFailed } from "./dynamo-client.js";

/**
 * An eventId claim reserves one client id for one commit slot (incident, first version) before
 * the commit is written. It is how idempotency holds without transactions:
 *
 * - a claim names the only slot where its event may be stored;
 * - it moves to another slot only once the slot it names holds a commit *without* the event
 *   (a commit is immutable, so that slot can never hold it later);
 * - whoever wants to store the event must hold the claim at the slot it writes.
 *
 * So an event is stored at most once, and a claim whose slot is still empty can be picked up
 * by a retry of the same append (it targets that very slot), after a crash or from a second
 * client at once: exactly one commit wins the slot.
 */
export interface Claim {
  eventId: string;
  incidentId: string;
  slot: number;
}

export class ClaimTable {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
    private readonly now: () => string,
  ) {}

  /** Puts the claim if the id is free; returns false if someone holds it already. */
  async tryClaim(claim: Claim): Promise<boolean> {
    try {
      await this.db.send(
        new PutItemCommand({
          TableName: this.table,
          Item: {
            eventId: { S: claim.eventId },
            incidentId: { S: claim.incidentId },
            slot: { N: String(claim.slot) },
            claimedAt: { S: this.now() },
          },
          ConditionExpression: "attribute_not_exists(eventId)",
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  async get(eventId: string): Promise<Claim | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: { eventId: { S: eventId } }, ConsistentRead: true }),
    );
    if (!out.Item) return null;
    return { eventId, incidentId: out.Item.incidentId?.S ?? "", slot: Number(out.Item.slot?.N) };
  }

  /** Moves a claim off a slot that is known to hold a commit without its event. */
  async move(from: Claim, to: { incidentId: string; slot: number }): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { eventId: { S: from.eventId } },
          UpdateExpression: "SET incidentId = :i, slot = :s, claimedAt = :t",
          ConditionExpression: "incidentId = :oi AND slot = :os",
          ExpressionAttributeValues: {
            ":i": { S: to.incidentId },
            ":s": { N: String(to.slot) },
            ":t": { S: this.now() },
            ":oi": { S: from.incidentId },
            ":os": { N: String(from.slot) },
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }
}
