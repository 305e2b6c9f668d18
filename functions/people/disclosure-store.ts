import {
  type AttributeValue,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ScanCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { Disclosure, Visibility } from "../../events/sealing.js";
import { conditionally } from "../store/dynamo-idioms.js";

/**
 * One sealed value as the disclosures table keeps it: held (the disclosure text, which carries
 * salt, pointer and value) or erased (a tombstone: only the digest the stored event already
 * shows, and which redaction erased it). `key` is the item it sits in; `packed` whether that item
 * is a pack of many values (else one item a value, the first layout, still read and redacted).
 */
export type HeldDisclosure = {
  incidentId: string;
  eventId: string;
  pointer: string;
  digest: string;
  key: string;
  packed: boolean;
  /** When the writer of its item started (its own clock), or when a sweep first saw an item without one. */
  writtenAt?: string;
} & ({ erased: false; disclosure: string; visibility: Visibility } | { erased: true; erasedBy: string });

/** One item of the table, as the orphan sweep sees it (functions/people/orphan-sweep.ts). */
export interface DisclosureItem {
  incidentId: string;
  eventId: string;
  key: string;
  writtenAt?: string;
}

type Item = Record<string, AttributeValue>;

/**
 * What one pack may hold of entries, by this module's own count (entrySize): DynamoDB's item
 * limit is 400 KB, counting attribute names and values; the margin is for the item's other
 * attributes and the count's own slack.
 */
export const PACK_BUDGET_BYTES = 350_000;
/** An `erasedBy` is a RedactionApplied's eventId (at most 64 characters). */
const ERASED_BY_MAX = 64;
/** DynamoDB's per-element cost in a map, and this count's slack for it (two spaces too). */
const ENTRY_OVERHEAD = 8;
/** How an erased entry's text begins (a held one begins with its visibility). */
const ERASED = "erased";

/**
 * The disclosures table (table-design.ts). The values of one event's attempt are written as a
 * few *packs*: items keyed `eventId#tag#part` whose `entries` map holds, per JSON Pointer, one
 * string, `<visibility> <digest> <disclosure>`, or for an erased value `erased <digest>
 * <erasedBy>` (no part holds a space: words, base64url, an event id) — strings, not maps, so
 * the store checks and sizes a third as many values. `tag` is the attempt's first digest (16 fresh
 * random bytes of salt are behind it), so two attempts at one eventId with different salts (a
 * retry racing the first try) never overwrite each other: the stored event commits to one of them,
 * and only that one is ever served (readers match each entry against the event's commitment).
 *
 * The first layout, one item a value keyed `eventId/pointer#digest`, is still read, withheld and
 * erased as it is; nothing writes it any more.
 *
 * Redactions change one entry in place (UpdateItem of a nested path, conditional on the entry):
 * withholding rewrites it restricted, erasure replaces it by a tombstone, and every other entry
 * of the pack stays as it was. Visibility only narrows, so an entry another redaction changed in
 * between is left as that one made it.
 */
export class DisclosureStore {
  constructor(
    private readonly db: DynamoDBClient,
    readonly table: string,
  ) {}

  /** Every value of an event (held, erased, and any orphan of an attempt that was never stored). */
  async ofEvent(incidentId: string, eventId: string): Promise<HeldDisclosure[]> {
    const found: HeldDisclosure[] = [];
    let start: Item | undefined;
    do {
      // An event id holds no `/` or `#`: a key beginning with it and carrying its eventId is its.
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "incidentId = :i AND begins_with(#k, :e)",
          FilterExpression: "eventId = :e",
          ExpressionAttributeNames: { "#k": "key" },
          ExpressionAttributeValues: { ":i": { S: incidentId }, ":e": { S: eventId } },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of out.Items ?? []) found.push(...valuesOf(item));
      start = out.LastEvaluatedKey;
    } while (start);
    return found;
  }

  /**
   * Writes disclosures made with fresh salts, packed, each pack put only if absent: a repeat
   * delivery of the put finds it and changes nothing, so a pack is never overwritten once a
   * redaction may have changed it. (A retry of the append reuses the salts it finds instead of
   * making new ones, and writes nothing for them.) `writtenAt`: the writer's clock before this
   * write, from which its deadline to commit the event counts (the orphan sweep relies on it).
   */
  async putFresh(
    incidentId: string,
    eventId: string,
    disclosures: readonly Disclosure[],
    writtenAt: string,
  ): Promise<void> {
    const [first] = disclosures;
    if (!first) return;
    const packs = packsOf(disclosures);
    await Promise.all(
      packs.map((entries, part) =>
        conditionally(
          this.db.send(
            new PutItemCommand({
              TableName: this.table,
              Item: {
                incidentId: { S: incidentId },
                key: { S: packKey(eventId, first.digest, part) },
                eventId: { S: eventId },
                writtenAt: { S: writtenAt },
                entries: {
                  M: Object.fromEntries(
                    entries.map((d) => [d.pointer, { S: heldEntry(d.visibility, d.digest, d.disclosure) }]),
                  ),
                },
              },
              ConditionExpression: "attribute_not_exists(#k)",
              ExpressionAttributeNames: { "#k": "key" },
            }),
          ),
        ),
      ),
    );
  }

  /**
   * Moves an item's `writtenAt` forward to `writtenAt` (a retry about to rely on what an earlier
   * attempt wrote: its deadline counts from now, so the sweep must not take the item before).
   * False when the item is gone (a sweep took it): the caller seals afresh.
   */
  async refresh(incidentId: string, key: string, writtenAt: string): Promise<boolean> {
    const Key = { incidentId: { S: incidentId }, key: { S: key } };
    const moved = await conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key,
          UpdateExpression: "SET writtenAt = :w",
          ConditionExpression: "attribute_exists(#k) AND (attribute_not_exists(writtenAt) OR writtenAt < :w)",
          ExpressionAttributeNames: { "#k": "key" },
          ExpressionAttributeValues: { ":w": { S: writtenAt } },
        }),
      ),
    );
    if (moved) return true;
    // Not moved: gone, or another writer moved it further already (which covers this one too).
    const out = await this.db.send(new GetItemCommand({ TableName: this.table, Key, ConsistentRead: true }));
    return out.Item !== undefined;
  }

  /** Makes a held value restricted (withheld); an erased one stays erased. */
  async withhold(item: HeldDisclosure): Promise<void> {
    if (item.erased) return;
    await conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { incidentId: { S: item.incidentId }, key: { S: item.key } },
          ...(item.packed
            ? {
                UpdateExpression: "SET entries.#p = :r",
                ConditionExpression: "entries.#p = :was",
                ExpressionAttributeNames: { "#p": item.pointer },
                ExpressionAttributeValues: {
                  ":r": { S: heldEntry("restricted", item.digest, item.disclosure) },
                  ":was": { S: heldEntry(item.visibility, item.digest, item.disclosure) },
                },
              }
            : {
                UpdateExpression: "SET visibility = :r",
                ConditionExpression: "attribute_exists(disclosure)",
                ExpressionAttributeValues: { ":r": { S: "restricted" } },
              }),
        }),
      ),
    );
  }

  /**
   * Erases for good: the value's entry (or, in the first layout, its item) is replaced by a
   * tombstone without salt or value. The tombstone keeps the pointer and digest, so a retried
   * append of the event never writes the value again, and a second erasure finds it done.
   */
  async erase(item: HeldDisclosure, erasedBy: string): Promise<void> {
    if (item.erased) return;
    const Key = { incidentId: { S: item.incidentId }, key: { S: item.key } };
    if (item.packed) {
      await conditionally(
        this.db.send(
          new UpdateItemCommand({
            TableName: this.table,
            Key,
            UpdateExpression: "SET entries.#p = :t",
            ConditionExpression: "attribute_exists(entries.#p) AND NOT begins_with(entries.#p, :erased)",
            ExpressionAttributeNames: { "#p": item.pointer },
            ExpressionAttributeValues: {
              ":t": { S: `${ERASED} ${item.digest} ${erasedBy}` },
              ":erased": { S: `${ERASED} ` },
            },
          }),
        ),
      );
      return;
    }
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          ...Key,
          eventId: { S: item.eventId },
          pointer: { S: item.pointer },
          digest: { S: item.digest },
          erased: { BOOL: true },
          erasedBy: { S: erasedBy },
          ...(item.writtenAt ? { writtenAt: { S: item.writtenAt } } : {}),
        },
      }),
    );
  }

  /** Every public, held value, page by page, from a full scan (the disclosures export). */
  async *publicPages(): AsyncGenerator<HeldDisclosure[]> {
    for await (const items of this.scan({
      // Packs are opened here: their entries' visibilities are inside the item.
      FilterExpression: "attribute_exists(entries) OR (visibility = :p AND attribute_exists(disclosure))",
      ExpressionAttributeValues: { ":p": { S: "public" } },
    })) {
      yield items.flatMap(valuesOf).filter((v) => !v.erased && v.visibility === "public");
    }
  }

  /** Every item's keys and time, page by page (the orphan sweep): no value is read. */
  async *itemPages(): AsyncGenerator<DisclosureItem[]> {
    for await (const items of this.scan({
      ProjectionExpression: "incidentId, #k, eventId, writtenAt",
      ExpressionAttributeNames: { "#k": "key" },
    })) {
      yield items.map((item) => ({
        incidentId: item.incidentId?.S ?? "",
        eventId: item.eventId?.S ?? "",
        key: item.key?.S ?? "",
        ...(item.writtenAt?.S ? { writtenAt: item.writtenAt.S } : {}),
      }));
    }
  }

  /** Gives an item without a time the sweep's: its age is counted from no earlier than this. */
  async stamp(item: DisclosureItem, seenAt: string): Promise<boolean> {
    return conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { incidentId: { S: item.incidentId }, key: { S: item.key } },
          UpdateExpression: "SET writtenAt = :w",
          ConditionExpression: "attribute_exists(#k) AND attribute_not_exists(writtenAt)",
          ExpressionAttributeNames: { "#k": "key" },
          ExpressionAttributeValues: { ":w": { S: seenAt } },
        }),
      ),
    );
  }

  /** Deletes an orphan item, only if no writer has moved its time since the sweep read it. */
  async removeOrphan(item: DisclosureItem & { writtenAt: string }): Promise<boolean> {
    return conditionally(
      this.db.send(
        new DeleteItemCommand({
          TableName: this.table,
          Key: { incidentId: { S: item.incidentId }, key: { S: item.key } },
          ConditionExpression: "writtenAt = :w",
          ExpressionAttributeValues: { ":w": { S: item.writtenAt } },
        }),
      ),
    );
  }

  private async *scan(
    input: Omit<ConstructorParameters<typeof ScanCommand>[0], "TableName" | "ExclusiveStartKey">,
  ): AsyncGenerator<Item[]> {
    let start: Item | undefined;
    do {
      const out = await this.db.send(
        new ScanCommand({ ...input, TableName: this.table, ...(start ? { ExclusiveStartKey: start } : {}) }),
      );
      yield out.Items ?? [];
      start = out.LastEvaluatedKey;
    } while (start);
  }
}

/** A pack's key: the event, its attempt's first digest, the part. Zero-padded so parts sort in order. */
const packKey = (eventId: string, tag: string, part: number) =>
  `${eventId}#${tag}#${String(part).padStart(3, "0")}`;

const heldEntry = (visibility: Visibility, digest: string, disclosure: string) =>
  `${visibility} ${digest} ${disclosure}`;

/** An entry's size in the item at its largest: held and restricted, or erased. */
function entrySize(d: Disclosure): number {
  const named = Buffer.byteLength(d.pointer) + d.digest.length + ENTRY_OVERHEAD;
  return named + Math.max("restricted".length + d.disclosure.length, ERASED.length + ERASED_BY_MAX);
}

/** Disclosures in document order, cut into packs that each fit one item. */
export function packsOf(disclosures: readonly Disclosure[]): Disclosure[][] {
  const packs: Disclosure[][] = [];
  let current: Disclosure[] = [];
  let bytes = 0;
  for (const d of disclosures) {
    const size = entrySize(d);
    if (current.length > 0 && bytes + size > PACK_BUDGET_BYTES) {
      packs.push(current);
      current = [];
      bytes = 0;
    }
    current.push(d);
    bytes += size;
  }
  if (current.length > 0) packs.push(current);
  return packs;
}

/** The values an item holds: a pack's entries in a stable order, or a first-layout item's one value. */
function valuesOf(item: Item): HeldDisclosure[] {
  const common = {
    incidentId: item.incidentId?.S ?? "",
    eventId: item.eventId?.S ?? "",
    key: item.key?.S ?? "",
    ...(item.writtenAt?.S ? { writtenAt: item.writtenAt.S } : {}),
  };
  const entries = item.entries?.M;
  if (!entries) {
    // The first layout: one value, its parts as attributes.
    const one = { ...common, pointer: item.pointer?.S ?? "", packed: false, digest: item.digest?.S ?? "" };
    if (item.erased?.BOOL) return [{ ...one, erased: true, erasedBy: item.erasedBy?.S ?? "" }];
    return [
      {
        ...one,
        erased: false,
        disclosure: item.disclosure?.S ?? "",
        visibility: visibility(item.visibility?.S),
      },
    ];
  }
  return Object.keys(entries)
    .sort(byDocumentOrder)
    .map((pointer): HeldDisclosure => {
      const [state, digest = "", rest = ""] = (entries[pointer]?.S ?? "").split(" ");
      const one = { ...common, pointer, packed: true, digest };
      if (state === ERASED) return { ...one, erased: true, erasedBy: rest };
      return { ...one, erased: false, disclosure: rest, visibility: visibility(state) };
    });
}

const visibility = (text: string | undefined): Visibility => (text === "public" ? "public" : "restricted");

/** JSON Pointers by token, numbers as numbers (`/victims/2` before `/victims/10`). */
function byDocumentOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [p, q] = [x[i] as string, y[i] as string];
    if (p === q) continue;
    const numeric = /^\d+$/.test(p) && /^\d+$/.test(q);
    return numeric ? Number(p) - Number(q) : p < q ? -1 : 1;
  }
  return x.length - y.length;
}
