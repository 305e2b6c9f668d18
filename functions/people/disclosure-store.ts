import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { Disclosure, Visibility } from "../../events/sealing.js";
import { BATCH_WRITE_LIMIT, batchPutItems, isConditionFailed } from "../store/dynamo-idioms.js";

/**
 * One sealed value as the disclosures table keeps it: held (the disclosure text, which carries
 * salt, pointer and value) or erased (a tombstone: only the digest the stored event already
 * shows, and which redaction erased it).
 */
export type HeldDisclosure = {
  incidentId: string;
  eventId: string;
  pointer: string;
  digest: string;
} & ({ erased: false; disclosure: string; visibility: Visibility } | { erased: true; erasedBy: string });

type Item = Record<string, AttributeValue>;

const BATCHES_IN_FLIGHT = 4;

/**
 * The disclosures table (table-design.ts): one item per (event, pointer, digest). The digest is
 * in the key so that two attempts at one eventId with different salts (a retry racing the first
 * try) never overwrite each other: the stored event commits to one of them, and only that one is
 * ever served (readers match each item against the event's commitment).
 */
export class DisclosureStore {
  constructor(
    private readonly db: DynamoDBClient,
    readonly table: string,
  ) {}

  /** Every item of an event (held, erased, and any orphan of an attempt that was never stored). */
  async ofEvent(incidentId: string, eventId: string): Promise<HeldDisclosure[]> {
    return this.query(incidentId, `${eventId}/`);
  }

  /** The items at one pointer of an event. */
  async atPointer(incidentId: string, eventId: string, pointer: string): Promise<HeldDisclosure[]> {
    return this.query(incidentId, `${eventId}${pointer}#`);
  }

  /**
   * Writes disclosures made with fresh salts. Plain batch puts, 25 a call: each key holds a digest
   * of 16 fresh random bytes of salt, so no other item can have it — the write can only create,
   * never overwrite a withheld or erased item (a retry of the append reuses the salts it finds
   * instead of making new ones, and writes nothing for them), and a repeat delivery writes the
   * same bytes. A redaction can name an item only once the event committing to it is stored,
   * which is after this write.
   */
  async putFresh(incidentId: string, eventId: string, disclosures: readonly Disclosure[]): Promise<void> {
    const items = disclosures.map((d) => ({
      incidentId: { S: incidentId },
      key: { S: keyOf(eventId, d.pointer, d.digest) },
      eventId: { S: eventId },
      pointer: { S: d.pointer },
      digest: { S: d.digest },
      disclosure: { S: d.disclosure },
      visibility: { S: d.visibility },
    }));
    // A few batch calls in flight: a list of 500 victims is up to 3,000 values, 120 calls.
    const share = Math.ceil(items.length / BATCHES_IN_FLIGHT / BATCH_WRITE_LIMIT) * BATCH_WRITE_LIMIT;
    const shares = [];
    for (let i = 0; i < items.length; i += share) shares.push(items.slice(i, i + share));
    await Promise.all(shares.map((part) => batchPutItems(this.db, this.table, part)));
  }

  /** Makes a held item restricted (withheld); an erased one stays erased. */
  async withhold(item: HeldDisclosure): Promise<void> {
    if (item.erased) return;
    try {
      await this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: {
            incidentId: { S: item.incidentId },
            key: { S: keyOf(item.eventId, item.pointer, item.digest) },
          },
          UpdateExpression: "SET visibility = :r",
          ConditionExpression: "attribute_exists(disclosure)",
          ExpressionAttributeValues: { ":r": { S: "restricted" } },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }

  /**
   * Erases for good: the item is replaced by a tombstone without salt or value (a put replaces
   * every attribute). The tombstone keeps the key, so a retried append of the event never writes
   * the value again, and a second erasure finds it done.
   */
  async erase(item: HeldDisclosure, erasedBy: string): Promise<void> {
    if (item.erased) return;
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          incidentId: { S: item.incidentId },
          key: { S: keyOf(item.eventId, item.pointer, item.digest) },
          eventId: { S: item.eventId },
          pointer: { S: item.pointer },
          digest: { S: item.digest },
          erased: { BOOL: true },
          erasedBy: { S: erasedBy },
        },
      }),
    );
  }

  /** Every public, held item, page by page, from a full scan (the disclosures export). */
  async *publicPages(): AsyncGenerator<HeldDisclosure[]> {
    let start: Item | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: "visibility = :p AND attribute_exists(disclosure)",
          ExpressionAttributeValues: { ":p": { S: "public" } },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      yield (out.Items ?? []).map(fromItem);
      start = out.LastEvaluatedKey;
    } while (start);
  }

  private async query(incidentId: string, prefix: string): Promise<HeldDisclosure[]> {
    const found: HeldDisclosure[] = [];
    let start: Item | undefined;
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "incidentId = :i AND begins_with(#k, :p)",
          ExpressionAttributeNames: { "#k": "key" },
          ExpressionAttributeValues: { ":i": { S: incidentId }, ":p": { S: prefix } },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      found.push(...(out.Items ?? []).map(fromItem));
      start = out.LastEvaluatedKey;
    } while (start);
    return found;
  }
}

/** An event id holds no `/` and a pointer of a sealed field no `#`: the key splits one way only. */
export const keyOf = (eventId: string, pointer: string, digest: string) => `${eventId}${pointer}#${digest}`;

function fromItem(item: Item): HeldDisclosure {
  const base = {
    incidentId: item.incidentId?.S ?? "",
    eventId: item.eventId?.S ?? "",
    pointer: item.pointer?.S ?? "",
    digest: item.digest?.S ?? "",
  };
  if (item.erased?.BOOL) return { ...base, erased: true, erasedBy: item.erasedBy?.S ?? "" };
  return {
    ...base,
    erased: false,
    disclosure: item.disclosure?.S ?? "",
    visibility: item.visibility?.S === "public" ? "public" : "restricted",
  };
}
