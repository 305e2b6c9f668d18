import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../events/schemas.js";
import { serverEventId } from "../../events/server-ids.js";
import { type ChainHead, GENESIS_HASH, type StoredEvent, sealEvents } from "../../events/stored-event.js";
import type { LocalServer } from "../../functions/local/server.js";
import { commitToItem } from "../../functions/store/commit-item.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { call, casualties, envelope, opened, startArchive } from "../support/archive.js";

// The archive once stored several appends of one process in one commit item, each a slice
// recorded in `appends`. Stored items are never rewritten: such items must still read, fold,
// verify and replay exactly as they did. This writes one the way that code wrote it.
let archive: LocalServer;
let store: EventStore;
const db = () => createDynamoClient(archive.dynamoEndpoint);
beforeAll(async () => {
  archive = await startArchive();
  store = new EventStore({ db: db(), tables: archive.tables });
});
afterAll(() => archive.close());

const toll = (value: number, eventId?: string) =>
  envelope(casualties({ killed: { value, qualifier: "exact" } }, `source-${value}`, eventId));
const append = (incidentId: string, envelopes: Envelope[]) =>
  store.append({ incidentId, envelopes, recordedBy: "old-writer", batched: envelopes.length > 1 });

/** Stores one commit holding the given appends as slices, after `head`. */
async function storeGrouped(
  incidentId: string,
  head: ChainHead,
  appends: Envelope[][],
): Promise<StoredEvent[]> {
  let chain = head;
  const slices = appends.map((envelopes) => {
    const events = sealEvents(chain, envelopes, {
      incidentId,
      recordedBy: "old-writer",
      now: new Date().toISOString(),
      newEventId: (version) => serverEventId(incidentId, version),
    });
    const last = events[events.length - 1] as StoredEvent;
    chain = { version: last.version, hash: last.hash, recordedAt: last.recordedAt };
    return events;
  });
  const events = slices.flat();
  const item = commitToItem({
    incidentId,
    version: head.version + 1,
    lastVersion: chain.version,
    events,
    token: "old-token",
    appends: slices.map((slice) => (slice[0] as StoredEvent).version),
  });
  await db().send(new PutItemCommand({ TableName: archive.tables.events, Item: item }));
  // The claims the old writer held for its client ids, as it left them.
  for (const e of events)
    if (!e.eventId.startsWith("ev_"))
      await db().send(
        new PutItemCommand({
          TableName: archive.tables.claims,
          Item: {
            eventId: { S: e.eventId },
            incidentId: { S: incidentId },
            slot: { N: String(head.version + 1) },
            claimedAt: { S: new Date().toISOString() },
          },
        }),
      );
  archive.stream.publish(item);
  return events;
}

describe("stored commits holding several appends", () => {
  it("read, fold and verify like any commit, and appends go on after them", async () => {
    const id = "multi-append-read";
    const first = await append(id, [envelope(opened())]);
    const head = { version: 1, hash: first.events[0]?.hash as string, recordedAt: new Date().toISOString() };
    expect(head.hash).not.toBe(GENESIS_HASH);
    await storeGrouped(id, head, [[toll(10)], [toll(12), toll(13)], [toll(14, "multi-read-14")]]);
    const next = await append(id, [toll(20)]);
    expect(next.version).toBe(6);

    const events = await call(archive.url, "GET", `/incidents/${id}/events`);
    expect(events.body.items.map((e: StoredEvent) => e.version)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body).toMatchObject({
      ok: true,
      version: 6,
    });
    const summary = await call(archive.url, "GET", `/incidents/${id}?minVersion=6`);
    expect(summary.body.casualties.killed.low).toBe(20);
    expect(summary.body.casualties.killed.reports).toBe(5);
  });

  it("a mixed batch posted again replays within its own slice; a changed one is refused", async () => {
    const id = "multi-append-replay";
    const first = await append(id, [envelope(opened())]);
    const head = { version: 1, hash: first.events[0]?.hash as string, recordedAt: new Date().toISOString() };
    const mixed = [toll(2, "multi-replay-2"), toll(3)];
    const all = [toll(4, "multi-replay-4"), toll(5, "multi-replay-5")];
    const stored = await storeGrouped(id, head, [[toll(1)], mixed, all]);

    const again = await append(id, mixed);
    expect(again).toEqual({
      created: false,
      incidentId: id,
      version: 6,
      events: stored.slice(1, 3).map(({ eventId, version, hash }) => ({ eventId, version, hash })),
    });
    const allAgain = await append(id, all);
    expect(allAgain.created).toBe(false);
    expect(allAgain.events.map((e) => e.version)).toEqual([5, 6]);
    // Same ids, but the event without one differs from the slice: not a replay, nothing stored.
    await expect(append(id, [toll(2, "multi-replay-2"), toll(30)])).rejects.toMatchObject({
      name: "EventIdConflictError",
    });
    let count = 0;
    for await (const _ of store.events(id)) count += 1;
    expect(count).toBe(6);
  });
});
