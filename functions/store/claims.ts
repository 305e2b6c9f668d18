import { randomUUID } from "node:crypto";
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { batchGetItems, conditionally } from "./dynamo-idioms.js";

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
 *
 * A writer may also *release* a claim it wrote and never put a commit for (a claim made ahead of
 * its append's turn, append-queue.ts, when the turn finds another slot or refuses the append):
 * the claim then names no slot, so no commit can rely on it, and the id is free again. Every
 * write of a claim gives it a new random `holder`, and a release is conditional on the holder
 * being the releaser's: a claim anyone else took over since is never released.
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

/** A claim as its writer wrote it: the `holder` token says it is still the writer's. */
export interface HeldClaim extends Claim {
  claimedAt: string;
  holder: string;
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

  /** A claim as this writer is about to write it: stamped with its time and a new holder token. */
  hold(claim: Claim): HeldClaim {
    return { ...claim, claimedAt: this.now(), holder: randomUUID() };
  }

  /** Puts the claim if the id is free (never claimed, or released); false if someone holds it. */
  async tryClaim(held: HeldClaim): Promise<boolean> {
    return conditionally(
      this.db.send(
        new PutItemCommand({
          TableName: this.table,
          Item: {
            eventId: { S: held.eventId },
            incidentId: { S: held.incidentId },
            slot: { N: String(held.slot) },
            claimedAt: { S: held.claimedAt },
            holder: { S: held.holder },
          },
          ConditionExpression: "attribute_not_exists(eventId) OR attribute_not_exists(slot)",
        }),
      ),
    );
  }

  /** Frees a claim its writer holds and put no commit for; false if someone else took it since. */
  async release(held: HeldClaim): Promise<boolean> {
    return conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { eventId: { S: held.eventId } },
          UpdateExpression: "REMOVE incidentId, slot, claimedAt, holder",
          ConditionExpression: "holder = :h",
          ExpressionAttributeValues: { ":h": { S: held.holder } },
        }),
      ),
    );
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
          UpdateExpression: "SET incidentId = :i, slot = :s, claimedAt = :t, holder = :h",
          ConditionExpression:
            from.claimedAt === undefined
              ? "incidentId = :oi AND slot = :os AND attribute_not_exists(claimedAt)"
              : "incidentId = :oi AND slot = :os AND claimedAt = :ot",
          ExpressionAttributeValues: {
            ":i": { S: to.incidentId },
            ":s": { N: String(to.slot) },
            ":t": { S: this.now() },
            ":h": { S: randomUUID() },
            ":oi": { S: from.incidentId },
            ":os": { N: String(from.slot) },
            ...(from.claimedAt === undefined ? {} : { ":ot": { S: from.claimedAt } }),
          },
        }),
      ),
    );
  }
}

/** A claim item as a claim; null once released (it names no slot). */
function claimOf(eventId: string, item: Record<string, AttributeValue>): Claim | null {
  if (item.slot?.N === undefined) return null;
  const claimedAt = item.claimedAt?.S;
  return {
    eventId,
    incidentId: item.incidentId?.S ?? "",
    slot: Number(item.slot?.N),
    ...(claimedAt === undefined ? {} : { claimedAt }),
  };
}
