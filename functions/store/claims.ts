import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { batchGetItems, conditionally, putIfAbsent } from "./dynamo-idioms.js";

/**
 * An eventId claim reserves one client id for one commit slot (incident, first version) before
 * the commit is written. It is how idempotency holds without transactions:
 *
 * - a claim names the only slot where its event may be stored;
 * - it moves to another slot only once the slot it names holds a commit *without* the event
 *   (a commit is immutable, so that slot can never hold it later);
 * - whoever wants to store the event must hold the claim at the slot it writes.
 *
 So an event is stored at most once, and a claim whose slot is still empty can be picked up
 * by a retry of the same append (it targets that very slot), after a crash or from a second
 * client at once: exactly one commit wins the slot.
 *
 * A claim left by a crash on *another* incident's empty slot would keep its id reserved until
 * that incident's next append fills the slot. It is bounded in time instead:
 *
 * - a writer puts its commit only while its claims are younger than WRITER_DEADLINE_MS,
 *   counted on its own clock from before it wrote (or refreshed) them — checked right before
 *   the put, and in AWS a request signed more than 15 minutes earlier is refused anyway;
 * - a writer that takes over a claim at its own slot (a retry) refreshes `claimedAt` first,
 *   conditionally on the value it read, so the deadline always counts from the last holder;
 * - a claim older than ABANDONED_AFTER_MS (twice the deadline: room for clock skew between
 *   writers) whose slot is empty may be moved, conditionally on its `claimedAt` unchanged.
 *
 * So when a claim is moved as abandoned, its last holder can no longer put the commit that
 * would store the event at the old slot: the event still lands at most once. Lambda's own
 * limit (15 minutes a call) is the model for the deadline.
 */
export const WRITER_DEADLINE_MS = 15 * 60_000;
export const ABANDONED_AFTER_MS = 2 * WRITER_DEADLINE_MS;

export interface Claim {
  eventId: string;
  incidentId: string;
  slot: number;
  /** When its holder wrote it (ISO 8601), on the holder's clock. */
  claimedAt?: string;
}

/** Whether a claim is past the time any writer could still be holding it, at `now` (ISO). */
export function isAbandoned(claim: Claim, now: string): boolean {
  return claim.claimedAt !== undefined && Date.parse(now) - Date.parse(claim.claimedAt) > ABANDONED_AFTER_MS;
}

export class ClaimTable {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
    private readonly now: () => string,
  ) {}

  /** Puts the claim if the id is free; returns false if someone holds it already. */
  async tryClaim(claim: Claim): Promise<boolean> {
    const item = {
      eventId: { S: claim.eventId },
      incidentId: { S: claim.incidentId },
      slot: { N: String(claim.slot) },
      claimedAt: { S: this.now() },
    };
    return putIfAbsent(this.db, this.table, item, "eventId");
  }

  async get(eventId: string): Promise<Claim | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: { eventId: { S: eventId } }, ConsistentRead: true }),
    );
    return out.Item ? claimOf(eventId, out.Item) : null;
  }

  /** The claims of many ids in one consistent read (a batch's ids), null where there is none. */
  async getMany(eventIds: readonly string[]): Promise<Map<string, Claim | null>> {
    const items = await batchGetItems(
      this.db,
      this.table,
      eventIds.map((id) => ({ eventId: { S: id } })),
      { consistent: true },
    );
    const found = new Map<string, Claim | null>(eventIds.map((id) => [id, null]));
    for (const item of items) found.set(item.eventId?.S ?? "", claimOf(item.eventId?.S ?? "", item));
    return found;
  }

  /**
   * Moves a claim (or re-takes it at the same slot, refreshing its time) if it is still exactly
   * as read: only off a slot that holds a commit without its event, an abandoned one, or by a
   * retry of the append it was made for.
   */
  async move(from: Claim, to: { incidentId: string; slot: number }): Promise<boolean> {
    return conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { eventId: { S: from.eventId } },
          UpdateExpression: "SET incidentId = :i, slot = :s, claimedAt = :t",
          ConditionExpression:
            from.claimedAt === undefined
              ? "incidentId = :oi AND slot = :os AND attribute_not_exists(claimedAt)"
              : "incidentId = :oi AND slot = :os AND claimedAt = :ot",
          ExpressionAttributeValues: {
            ":i": { S: to.incidentId },
            ":s": { N: String(to.slot) },
            ":t": { S: this.now() },
            ":oi": { S: from.incidentId },
            ":os": { N: String(from.slot) },
            ...(from.claimedAt === undefined ? {} : { ":ot": { S: from.claimedAt } }),
          },
        }),
      ),
    );
  }
}

function claimOf(eventId: string, item: Record<string, AttributeValue>): Claim {
  const claimedAt = item.claimedAt?.S;
  return {
    eventId,
    incidentId: item.incidentId?.S ?? "",
    slot: Number(item.slot?.N),
    ...(claimedAt === undefined ? {} : { claimedAt }),
  };
}
