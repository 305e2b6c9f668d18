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
import { StoreBusyError } from "../errors.js";
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
/** JSON's quotes, commas and brackets around an entry's four strings. */
const ENTRY_OVERHEAD = 16;
/** How many times a redaction re-reads a pack another writer changed under it. */
const REDACT_ATTEMPTS = 10;

/** What a rewrite does to the entries it names: a redaction's effect, or their removal (`discard`). */
type Effect = "withheld" | "erased" | "discarded";

/** One entry of a pack: `[pointer, digest, visibility, disclosure]`, or erased `[pointer, digest, "erased", erasedBy]`. */
type Entry = [pointer: string, digest: string, state: Visibility | "erased", text: string];

/**
 * The disclosures table (table-design.ts). The values of one event's attempt are written as a
 * few *packs*: items keyed `eventId#tag#part` whose `entries` attribute is one string, the JSON
 * of its entries (one string, not a map: the store checks and sizes one value, not thousands).
 * `tag` is the attempt's first fresh digest (16 fresh random bytes of salt are behind it), so
 * attempts at one eventId with different salts (a retry racing the first try) never overwrite
 * each other: the stored event commits to one set of values, and only those are ever served
 * (readers match each entry against the event's commitment).
 *
 * A redaction rewrites the packs it touches: the entries read, the named ones made restricted
 * (withheld) or replaced by a tombstone (erased), every other one as it was, written back only
 * if `rev` is still the one read (else read again), so two redactions at once both take effect.
 * Visibility only narrows, and an erased entry stays erased.
 *
 * The first layout, one item a value keyed `eventId/pointer#digest`, is still read, withheld and
 * erased as it is; nothing writes it any more.
 */
export class DisclosureStore {
  /**
   * `forgetOverwritten`: makes the store's files drop what was overwritten in the table, at once. LevelDB
   * (`npm start`) keeps an old pack in its files until it compacts them; DynamoDB needs nothing.
   */
  constructor(
    private readonly db: DynamoDBClient,
    readonly table: string,
    private readonly forgetOverwritten?: (table: string) => Promise<void>,
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
  ): Promise<HeldDisclosure[]> {
    const [first] = disclosures;
    if (!first) return [];
    const packs = packsOf(disclosures);
    await Promise.all(
      packs.map((pack, part) =>
        conditionally(
          this.db.send(
            new PutItemCommand({
              TableName: this.table,
              Item: {
                incidentId: { S: incidentId },
                key: { S: packKey(eventId, first.digest, part) },
                eventId: { S: eventId },
                writtenAt: { S: writtenAt },
                rev: { N: "0" },
                entries: {
                  S: JSON.stringify(
                    pack.map((d): Entry => [d.pointer, d.digest, d.visibility, d.disclosure]),
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
    return packs.flatMap((pack, part) =>
      pack.map(
        (d): HeldDisclosure => ({
          incidentId,
          eventId,
          pointer: d.pointer,
          digest: d.digest,
          key: packKey(eventId, first.digest, part),
          packed: true,
          writtenAt,
          erased: false,
          disclosure: d.disclosure,
          visibility: d.visibility,
        }),
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
    return (await this.getItem(Key)) !== undefined;
  }

  /** Makes held values restricted (withheld); an erased one stays erased. */
  withhold(items: readonly HeldDisclosure[]): Promise<void> {
    return this.redact(items, "withheld", "");
  }

  /**
   * Erases for good: each value's entry (or, in the first layout, its item) is replaced by a
   * tombstone without salt or value. The tombstone keeps the pointer and digest, so a retried
   * append of the event never writes the value again, and who erased it, so a later redaction of
   * it is refused once that one is stored, unless it is a retry of it; a tombstone among `items`
   * takes `erasedBy` as its eraser (functions/people/sealed-append.ts).
   */
  async erase(items: readonly HeldDisclosure[], erasedBy: string): Promise<void> {
    await this.redact(items, "erased", erasedBy);
    await this.forgetOverwritten?.(this.table);
  }

  /**
   * Removes values that no event commits to, nor ever will (what a refused append wrote, or an
   * attempt its eventId was stored without: functions/people/sealed-append.ts): each entry leaves
   * its pack, rewritten as a redaction rewrites it (a pack left with nothing stays, empty).
   * Nothing is deleted: no writer may delete here (infra/people-tables.ts). A first-layout item
   * (one value an item, as the first version wrote them) is left to the orphan sweep. As after an
   * erasure, a local store's files drop the old packs at once: the refused values were never
   * anyone's to keep.
   */
  async discard(items: readonly HeldDisclosure[]): Promise<void> {
    await this.redact(items, "discarded", "");
    await this.forgetOverwritten?.(this.table);
  }

  private async redact(items: readonly HeldDisclosure[], effect: Effect, by: string) {
    const packs = new Map<string, HeldDisclosure[]>();
    for (const item of items) {
      // A tombstone holds no value; an erasure names it only to record who erased it (below).
      if (item.erased && (effect !== "erased" || !item.packed)) continue;
      if (!item.packed) {
        // A first-layout value is discarded by the sweep, never here: a tombstone would read as
        // an erasure to a later retry of its event, and no writer may delete in this table.
        if (effect === "discarded") continue;
        await (effect === "erased" ? this.eraseFirstLayout(item, by) : this.withholdFirstLayout(item));
        continue;
      }
      const key = `${item.incidentId}\n${item.key}`;
      packs.set(key, [...(packs.get(key) ?? []), item]);
    }
    for (const named of packs.values()) await this.rewritePack(named, effect, by);
  }

  /** One pack rewritten with the named entries redacted, conditional on its revision (see the class). */
  private async rewritePack(named: readonly HeldDisclosure[], effect: Effect, by: string) {
    const [first] = named as [HeldDisclosure];
    const Key = { incidentId: { S: first.incidentId }, key: { S: first.key } };
    const pointers = new Set(named.map((n) => n.pointer));
    const redacted = (entry: Entry): Entry | null => {
      const [pointer, digest, state] = entry;
      if (!pointers.has(pointer)) return entry;
      // Erased before by a redaction the chain does not hold (its append was refused after its
      // effect): this one, which records it, becomes its eraser.
      if (state === "erased") return effect === "erased" ? [pointer, digest, "erased", by] : entry;
      if (effect === "discarded") return null;
      return effect === "erased"
        ? [pointer, digest, "erased", by]
        : [pointer, digest, "restricted", entry[3]];
    };
    for (let attempt = 0; attempt < REDACT_ATTEMPTS; attempt++) {
      const item = await this.getItem(Key);
      if (!item?.entries?.S) return;
      const entries = JSON.parse(item.entries.S) as Entry[];
      const next = entries.map(redacted).filter((entry) => entry !== null);
      const text = JSON.stringify(next);
      if (text === item.entries.S) return;
      const rev = item.rev?.N ?? "0";
      const written = await conditionally(
        this.db.send(
          new UpdateItemCommand({
            TableName: this.table,
            Key,
            UpdateExpression: "SET entries = :e, rev = :next",
            ConditionExpression: "rev = :rev",
            ExpressionAttributeValues: {
              ":e": { S: text },
              ":rev": { N: rev },
              ":next": { N: String(Number(rev) + 1) },
            },
          }),
        ),
      );
      if (written) return;
    }
    throw new StoreBusyError(
      `the disclosures of ${first.eventId} kept changing during a redaction; try again`,
    );
  }

  private async withholdFirstLayout(item: HeldDisclosure): Promise<void> {
    await conditionally(
      this.db.send(
        new UpdateItemCommand({
          TableName: this.table,
          Key: { incidentId: { S: item.incidentId }, key: { S: item.key } },
          UpdateExpression: "SET visibility = :r",
          ConditionExpression: "attribute_exists(disclosure)",
          ExpressionAttributeValues: { ":r": { S: "restricted" } },
        }),
      ),
    );
  }

  /** A first-layout item is replaced by a tombstone (a put replaces every attribute). */
  private async eraseFirstLayout(item: HeldDisclosure, erasedBy: string): Promise<void> {
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          incidentId: { S: item.incidentId },
          key: { S: item.key },
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

  private async getItem(Key: Item): Promise<Item | undefined> {
    return (await this.db.send(new GetItemCommand({ TableName: this.table, Key, ConsistentRead: true })))
      .Item;
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

  /**
   * Every item's keys and time, page by page (the orphan sweep): no value is read. The sweep's
   * role may scan only so: Select named, and these attributes only (infra/people-tables.ts).
   */
  async *itemPages(): AsyncGenerator<DisclosureItem[]> {
    for await (const items of this.scan({
      Select: "SPECIFIC_ATTRIBUTES",
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

/** An entry's size in the item at its largest: held and restricted, or erased. */
function entrySize(d: Disclosure): number {
  const named = Buffer.byteLength(d.pointer) + d.digest.length + ENTRY_OVERHEAD;
  return named + Math.max("restricted".length + d.disclosure.length, "erased".length + ERASED_BY_MAX);
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

/** The values an item holds: a pack's entries (in the event's order), or a first-layout item's one value. */
function valuesOf(item: Item): HeldDisclosure[] {
  const common = {
    incidentId: item.incidentId?.S ?? "",
    eventId: item.eventId?.S ?? "",
    key: item.key?.S ?? "",
    ...(item.writtenAt?.S ? { writtenAt: item.writtenAt.S } : {}),
  };
  const entries = item.entries?.S;
  if (entries === undefined) {
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
  return (JSON.parse(entries) as Entry[]).map(([pointer, digest, state, text]): HeldDisclosure => {
    const one = { ...common, pointer, packed: true, digest };
    if (state === "erased") return { ...one, erased: true, erasedBy: text };
    return { ...one, erased: false, disclosure: text, visibility: visibility(state) };
  });
}

const visibility = (text: string | undefined): Visibility => (text === "public" ? "public" : "restricted");
