import { type AttributeValue, type DynamoDBClient, QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../events/schemas.js";
import { checkDisclosure, commitmentsIn, decodeDisclosure, sealEnvelope } from "../../events/sealing.js";
import type { LocalServer } from "../../functions/local/server.js";
import { DisclosureStore } from "../../functions/people/disclosure-store.js";
import { ORPHAN_AFTER_MS, sweepOrphanDisclosures } from "../../functions/people/orphan-sweep.js";
import { SealedAppend } from "../../functions/people/sealed-append.js";
import { WRITER_DEADLINE_MS } from "../../functions/store/claims.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { peopleTables } from "../../functions/store/table-design.js";
import { AP, opened, startArchive } from "../support/archive.js";
import { type CallInfo, type Fault, faultyClient, InjectedCrashError } from "../support/faulty-client.js";
import { putFirstLayout } from "../support/legacy-disclosures.js";

/**
 * Orphan disclosures (functions/people/orphan-sweep.ts) against a real dynalite: appends killed
 * between the disclosures' write and the commit leave items no event commits to; the sweep takes
 * them once no writer can still commit them, and never an item whose event is stored or may
 * still be; a retry within the deadline reuses the first attempt's salts (and moves the time).
 */
const T0 = Date.parse("2026-06-01T12:00:00.000Z");
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const INCIDENT = "orphans";

let archive: LocalServer;
let clean: DynamoDBClient;
let table: string;
let disclosures: DisclosureStore;
let reader: EventStore;

beforeAll(async () => {
  archive = await startArchive();
  clean = createDynamoClient(archive.dynamoEndpoint);
  table = peopleTables(archive.tables).disclosures;
  disclosures = new DisclosureStore(clean, table);
  reader = new EventStore({ db: clean, tables: archive.tables });
  await reader.append({
    incidentId: INCIDENT,
    envelopes: [opened() as Envelope],
    recordedBy: "t",
    batched: false,
  });
});
afterAll(async () => {
  clean?.destroy();
  await archive?.close();
});

const list = (eventId: string) =>
  ({
    eventId,
    type: "VictimsRecorded",
    source: AP,
    attributedTo: { name: "Registry" },
    data: {
      victims: [
        { name: `Name of ${eventId}`, age: 41, sex: "female" },
        { name: `Other of ${eventId}`, place: "Platform 3" },
      ],
      disclose: { "/data/victims/0/name": "public" },
    },
  }) as Envelope;

/** A writer whose clock reads `writerAt` (the store's may lag behind it: `storeAt`), over `db`. */
function writer(db: DynamoDBClient, writerAt: number, storeAt = writerAt) {
  return new SealedAppend({
    events: new EventStore({ db, tables: archive.tables, now: () => iso(storeAt) }),
    disclosures: new DisclosureStore(db, table),
    now: () => iso(writerAt),
  });
}
const append = (w: SealedAppend, envelope: Envelope) =>
  w.append({ incidentId: INCIDENT, envelopes: [envelope], recordedBy: "t", batched: false });

/** Kills the writer around the first call that `match` names. */
function killedAt(match: (c: CallInfo) => boolean, when: "crash-before" | "crash-after") {
  let done = false;
  return faultyClient(archive.dynamoEndpoint, (c): Fault => {
    if (done || !match(c)) return "none";
    done = true;
    return when;
  });
}
const afterDisclosures = () =>
  killedAt((c) => c.table === table && c.command === "PutItemCommand", "crash-after");
const beforeCommit = () =>
  killedAt((c) => c.table === archive.tables.events && c.command === "PutItemCommand", "crash-before");

async function itemsOf(eventId: string): Promise<Record<string, AttributeValue>[]> {
  const out = await clean.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: "incidentId = :i AND begins_with(#k, :e)",
      ExpressionAttributeNames: { "#k": "key" },
      ExpressionAttributeValues: { ":i": { S: INCIDENT }, ":e": { S: eventId } },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}
const sweepAt = (ms: number) =>
  sweepOrphanDisclosures({
    disclosures,
    findEvent: (incidentId, eventId) => reader.findEvent(incidentId, eventId),
    now: () => iso(ms),
  });
const stored = (eventId: string) => reader.findEvent(INCIDENT, eventId);

describe("orphan disclosures", () => {
  let firstDigests: string[];

  it("an append killed after its disclosures are written, or right before its commit, leaves them and no event", async () => {
    await expect(append(writer(afterDisclosures(), T0), list("orphan-a"))).rejects.toBeInstanceOf(
      InjectedCrashError,
    );
    await expect(append(writer(beforeCommit(), T0), list("orphan-b"))).rejects.toBeInstanceOf(
      InjectedCrashError,
    );
    for (const id of ["orphan-a", "orphan-b"]) {
      expect(await stored(id)).toBeNull();
      const items = await itemsOf(id);
      expect(items).toHaveLength(1); // the event's four values in one pack
      expect(JSON.parse(items[0]?.entries?.S ?? "[]")).toHaveLength(4);
      expect(items[0]?.writtenAt?.S).toBe(iso(T0));
    }
    firstDigests = (await disclosures.ofEvent(INCIDENT, "orphan-b")).map((d) => d.digest);
  });

  it("a sweep within twice the writer deadline takes nothing: their appends may still commit", async () => {
    expect(ORPHAN_AFTER_MS).toBe(2 * WRITER_DEADLINE_MS);
    const report = await sweepAt(T0 + 20 * MIN);
    expect(report).toMatchObject({ removed: 0, young: 2 });
    expect(await itemsOf("orphan-a")).toHaveLength(1);
  });

  it("a retry within the deadline reuses the first attempt's salts, writes nothing new and moves the time", async () => {
    const at = T0 + 10 * MIN;
    const first = await append(writer(createDynamoClient(archive.dynamoEndpoint), at), list("orphan-b"));
    expect(first.created).toBe(true);
    const event = await stored("orphan-b");
    expect(
      commitmentsIn(event)
        .map((c) => c.digest)
        .sort(),
    ).toEqual(firstDigests.sort());
    const items = await itemsOf("orphan-b");
    expect(items).toHaveLength(1);
    expect(items[0]?.writtenAt?.S).toBe(iso(at));
    for (const d of await disclosures.ofEvent(INCIDENT, "orphan-b")) {
      if (!d.erased) expect(checkDisclosure(event, d.pointer, d.disclosure)).toEqual({ ok: true });
    }
    // And once more: the first answer, the same bytes.
    const again = await append(writer(clean, at + MIN), list("orphan-b"));
    expect(again.created).toBe(false);
    expect(again.events[0]?.hash).toBe(first.events[0]?.hash);
  });

  it("a writer past the deadline of its disclosures never commits (so the sweep may count on it)", async () => {
    const late = writer(createDynamoClient(archive.dynamoEndpoint), T0, T0 + WRITER_DEADLINE_MS + MIN);
    await expect(append(late, list("orphan-c"))).rejects.toMatchObject({ name: "StoreBusyError" });
    expect(await stored("orphan-c")).toBeNull();
    expect(await itemsOf("orphan-c")).toHaveLength(1);
  });

  it("past twice the deadline it removes orphans alone: never one whose event is stored, nor a young one", async () => {
    await expect(append(writer(afterDisclosures(), T0 + 40 * MIN), list("orphan-d"))).rejects.toBeInstanceOf(
      InjectedCrashError,
    );
    const report = await sweepAt(T0 + 45 * MIN);
    expect(report).toMatchObject({ removed: 2, stored: 1, young: 1, raced: 0 });
    expect(await itemsOf("orphan-a")).toEqual([]);
    expect(await itemsOf("orphan-c")).toEqual([]);
    expect(await itemsOf("orphan-b")).toHaveLength(1);
    expect(await itemsOf("orphan-d")).toHaveLength(1);
    // The stored event's values are all still served.
    const event = await stored("orphan-b");
    const held = await disclosures.ofEvent(INCIDENT, "orphan-b");
    expect(held.map((h) => h.digest).sort()).toEqual(
      commitmentsIn(event)
        .map((c) => c.digest)
        .sort(),
    );
  });

  it("keeps an orphan a writer relied on again between the sweep's read and its delete", async () => {
    const [item] = await itemsOf("orphan-d");
    const seen = { incidentId: INCIDENT, eventId: "orphan-d", key: item?.key?.S ?? "", writtenAt: iso(T0) };
    expect(await disclosures.removeOrphan(seen)).toBe(false);
    expect(await itemsOf("orphan-d")).toHaveLength(1);
  });

  it("a retry after the sweep took its orphans seals afresh, and its event is whole", async () => {
    const result = await append(writer(clean, T0 + 50 * MIN), list("orphan-a"));
    expect(result.created).toBe(true);
    const event = await stored("orphan-a");
    const held = await disclosures.ofEvent(INCIDENT, "orphan-a");
    expect(held).toHaveLength(4);
    for (const d of held)
      if (!d.erased) expect(checkDisclosure(event, d.pointer, d.disclosure)).toEqual({ ok: true });
  });

  it("gives a first-layout item (no time) the sweep's clock, and takes it a deadline later only if its event is not stored", async () => {
    const salt = () => "c2FsdHNhbHRzYWx0c2FsdA";
    const { disclosures: legacy } = sealEnvelope(list("legacy-orphan"), salt);
    await putFirstLayout(clean, table, INCIDENT, "legacy-orphan", legacy);
    // A stored event whose values are in the first layout: written as the code before packing did.
    const { sealed, disclosures: keptValues } = sealEnvelope(list("legacy-kept"), salt);
    await putFirstLayout(clean, table, INCIDENT, "legacy-kept", keptValues);
    await reader.append({ incidentId: INCIDENT, envelopes: [sealed], recordedBy: "t", batched: false });

    const first = await sweepAt(T0 + 60 * MIN);
    expect(first.stamped).toBe(8);
    expect(first.removed).toBe(0);
    expect((await itemsOf("legacy-orphan")).map((i) => i.writtenAt?.S)).toEqual(
      Array(4).fill(iso(T0 + 60 * MIN)),
    );
    const later = await sweepAt(T0 + 60 * MIN + ORPHAN_AFTER_MS + MIN);
    expect(later.removed).toBe(4 + 1); // the legacy orphan's four items, and orphan-d's pack
    expect(await itemsOf("legacy-orphan")).toEqual([]);
    expect(await itemsOf("legacy-kept")).toHaveLength(4);
    expect(await itemsOf("orphan-b")).toHaveLength(1);
  });
});

describe("values an eventId is stored without", () => {
  it("the append that stores it removes what an unstored attempt left with other values, and keeps the values it relied on", async () => {
    const renamed = structuredClone(list("stored-without"));
    (renamed.data as { victims: Record<string, unknown>[] }).victims[1] = {
      name: "Renamed of stored-without",
      place: "Platform 3",
    };
    const at = T0 + 70 * MIN;
    await expect(append(writer(afterDisclosures(), at), list("stored-without"))).rejects.toBeInstanceOf(
      InjectedCrashError,
    );
    const [left] = await itemsOf("stored-without");
    // Another content at the same eventId: three of the four values equal, and their salts reused.
    const result = await append(writer(clean, at + MIN), renamed);
    expect(result.created).toBe(true);
    const event = await stored("stored-without");
    const held = await disclosures.ofEvent(INCIDENT, "stored-without");
    expect(held).toHaveLength(4);
    for (const d of held) {
      expect(d.erased).toBe(false);
      if (!d.erased) expect(checkDisclosure(event, d.pointer, d.disclosure)).toEqual({ ok: true });
    }
    // The first attempt's pack is rewritten without its value for /data/victims/1/name.
    const first = (await itemsOf("stored-without")).find((i) => i.key?.S === left?.key?.S);
    expect((JSON.parse(first?.entries?.S ?? "[]") as string[][]).map((e) => e[0])).toEqual([
      "/data/victims/0/name",
      "/data/victims/0/age",
      "/data/victims/1/place",
    ]);
    const values = (await itemsOf("stored-without")).flatMap((i) =>
      (JSON.parse(i.entries?.S ?? "[]") as string[][]).map((e) => decodeDisclosure(e[3] as string)?.value),
    );
    expect(values).toContain("Renamed of stored-without");
    expect(values).not.toContain("Other of stored-without");
  });
});
