import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Disclosure } from "../../events/sealing.js";
import { DisclosureStore, type HeldDisclosure } from "../../functions/people/disclosure-store.js";
import { BATCH_WRITE_LIMIT, batchPutItems } from "../../functions/store/dynamo-idioms.js";

/**
 * The disclosures table's first layout, written as the code before packing wrote it: one item a
 * sealed value, keyed `eventId/pointer#digest`, with no `writtenAt`, in batch puts of 25, four
 * calls in flight. Tests write it to prove old items are still read, redacted and swept; the
 * people benchmark appends through it for its "before" row.
 */
export async function putFirstLayout(
  db: DynamoDBClient,
  table: string,
  incidentId: string,
  eventId: string,
  disclosures: readonly Disclosure[],
): Promise<void> {
  const items = disclosures.map((d) => ({
    incidentId: { S: incidentId },
    key: { S: firstLayoutKey(eventId, d) },
    eventId: { S: eventId },
    pointer: { S: d.pointer },
    digest: { S: d.digest },
    disclosure: { S: d.disclosure },
    visibility: { S: d.visibility },
  }));
  const share = Math.ceil(items.length / 4 / BATCH_WRITE_LIMIT) * BATCH_WRITE_LIMIT;
  const shares = [];
  for (let i = 0; i < items.length; i += share) shares.push(items.slice(i, i + share));
  await Promise.all(shares.map((part) => batchPutItems(db, table, part)));
}

const firstLayoutKey = (eventId: string, d: Disclosure) => `${eventId}${d.pointer}#${d.digest}`;

/** A disclosure store that writes the first layout (everything else as the store does). */
export class FirstLayoutDisclosureStore extends DisclosureStore {
  constructor(
    private readonly client: DynamoDBClient,
    table: string,
  ) {
    super(client, table);
  }

  override async putFresh(
    incidentId: string,
    eventId: string,
    disclosures: readonly Disclosure[],
  ): Promise<HeldDisclosure[]> {
    await putFirstLayout(this.client, this.table, incidentId, eventId, disclosures);
    return disclosures.map((d) => ({
      incidentId,
      eventId,
      pointer: d.pointer,
      digest: d.digest,
      key: firstLayoutKey(eventId, d),
      packed: false,
      erased: false,
      disclosure: d.disclosure,
      visibility: d.visibility,
    }));
  }
}
