import { type AttributeValue, ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../events/schemas.js";
import { checkDisclosure, decodeDisclosure, sealEnvelope } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { DisclosureStore } from "../../functions/people/disclosure-store.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { peopleTables } from "../../functions/store/table-design.js";
import { AP, call, opened, post, TOKEN } from "../support/archive.js";
import { putFirstLayout } from "../support/legacy-disclosures.js";

/**
 * The disclosures packed (functions/people/disclosure-store.ts), from outside and in the table:
 * a list of 1,000 victims is written in a few items under DynamoDB's 400 KB, every value readable
 * and opening its commitment; a redaction rewrites a pack and leaves every other value and every
 * proof as it was; a retry is byte-identical; and items of the first layout (one a value, written
 * here as the code before packing wrote them) are still read, withheld and erased.
 */
const READER = "restricted-reader-token-0123";
const as = { authorization: `Bearer ${READER}` };
const ID = "people-packs";

let archive: LocalServer;
let table: string;
beforeAll(async () => {
  archive = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: silentLogger,
    writer: "test-writer",
    users: [{ name: "Rita Reader", token: READER, roles: ["restricted-reader"] }],
  });
  table = peopleTables(archive.tables).disclosures;
  expect((await post(archive.url, ID, opened())).status).toBe(201);
});
afterAll(() => archive?.close());

/** 500 victims with sealed fields; with `notes`, long enough that the list needs more than one pack. */
const list = (eventId: string, from: number, notes = false) => ({
  eventId,
  type: "VictimsRecorded",
  source: AP,
  attributedTo: { name: "Regional registry" },
  data: {
    victims: Array.from({ length: 500 }, (_, i) => ({
      name: `Person ${from + i}`,
      nameVariants: [`P. ${from + i}`],
      age: (from + i) % 90,
      place: `Street ${from + i}`,
      ...(notes ? { notes: `identified by a relative; ${"details ".repeat(24)}${from + i}` } : {}),
      sex: i % 2 ? "female" : "male",
    })),
    disclose: { "/data/victims/0/name": "public", "/data/victims/1/name": "public" },
  },
});
const batch = { events: [list("packs-list-a", 0), list("packs-list-b", 500)] };

async function rows(eventId: string): Promise<Record<string, AttributeValue>[]> {
  const db = createDynamoClient(archive.dynamoEndpoint);
  const out: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    out.push(...(page.Items ?? []).filter((i) => i.eventId?.S === eventId));
    start = page.LastEvaluatedKey;
  } while (start);
  db.destroy();
  return out;
}
const stored = async (eventId: string): Promise<StoredEvent> => {
  const event = await archive.ledger.events.findEvent(ID, eventId);
  if (!event) throw new Error(`${eventId} is not stored`);
  return event;
};
const served = async (eventId: string, headers: Record<string, string> = {}) =>
  (await call(archive.url, "GET", `/incidents/${ID}/events/${eventId}/disclosures`, undefined, headers)).body
    .items as { pointer: string; disclosure: string; visibility: string }[];
const redact = (eventId: string, targetEventId: string, pointers: string[], effect: string) =>
  post(archive.url, ID, {
    eventId,
    type: "RedactionApplied",
    source: { publisher: "incident-ledger" },
    attributedTo: { name: "Archive editors" },
    data: { targetEventId, pointers, effect, reason: "data-subject-request" },
  });

describe("packed disclosures", () => {
  let first: { events: { hash: string }[] };

  it("writes 1,000 victims' 4,000 values in two items an event, and 500 with long notes in two, each under 400 KB, every value served and opening its commitment", async () => {
    const answer = await post(archive.url, ID, batch);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    first = answer.body;
    expect((await post(archive.url, ID, list("packs-list-c", 1000, true))).status).toBe(201);
    for (const [eventId, packs, values] of [
      ["packs-list-a", 2, 2000],
      ["packs-list-b", 2, 2000],
      ["packs-list-c", 2, 2500],
    ] as const) {
      const items = await rows(eventId);
      expect(items).toHaveLength(packs);
      for (const item of items) expect(JSON.stringify(item).length).toBeLessThan(400_000);
      const event = await stored(eventId);
      const all = await served(eventId, as);
      expect(all).toHaveLength(values);
      for (const d of all) expect(checkDisclosure(event, d.pointer, d.disclosure)).toEqual({ ok: true });
      expect((await served(eventId)).map((d) => d.pointer)).toEqual([
        "/data/victims/0/name",
        "/data/victims/1/name",
      ]);
    }
  });

  it("a retry of the batch is the first answer: the same stored bytes", async () => {
    const before = await stored("packs-list-b");
    const again = await post(archive.url, ID, batch);
    expect(again.status).toBe(200);
    expect(again.body.events.map((e: { hash: string }) => e.hash)).toEqual(first.events.map((e) => e.hash));
    expect(await stored("packs-list-b")).toEqual(before);
    expect(await rows("packs-list-b")).toHaveLength(2); // nothing new written
  });

  it("erasing one victim rewrites a pack: a tombstone with the digest alone, every other value and proof as it was", async () => {
    const before = await stored("packs-list-a");
    const pointers = ["/data/victims/7/name", "/data/victims/7/age", "/data/victims/7/place"];
    expect((await redact("packs-erase-7", "packs-list-a", pointers, "erased")).status).toBe(201);
    const all = await served("packs-list-a", as);
    expect(all).toHaveLength(1997);
    for (const d of all) expect(checkDisclosure(before, d.pointer, d.disclosure)).toEqual({ ok: true });
    expect(all.map((d) => d.pointer)).not.toContain("/data/victims/7/name");
    // In the table: the three entries hold their digest and who erased them, nothing else.
    const entries = (await rows("packs-list-a")).flatMap(
      (i) => JSON.parse(i.entries?.S ?? "[]") as string[][],
    );
    for (const pointer of pointers) {
      const entry = entries.find((e) => e[0] === pointer);
      expect(entry?.slice(2)).toEqual(["erased", "packs-erase-7"]);
    }
    const values = entries
      .filter((e) => e[2] !== "erased")
      .map((e) => decodeDisclosure(e[3] as string)?.value);
    expect(values).not.toContain("Person 7");
    expect(values).toContain("Person 8");
    expect(await stored("packs-list-a")).toEqual(before);
    expect((await call(archive.url, "GET", `/incidents/${ID}/verify`)).body).toMatchObject({ ok: true });
    const proof = await call(archive.url, "GET", `/incidents/${ID}/events/packs-list-a/proof?wait=true`);
    expect(proof.status).toBe(200);
  });

  it("withholds a public value (restricted-readers still read it), and two redactions of one pack at once both hold", async () => {
    const [withheld, erased] = await Promise.all([
      redact("packs-withhold-0", "packs-list-b", ["/data/victims/0/name"], "withheld"),
      redact("packs-erase-9", "packs-list-c", ["/data/victims/499/notes"], "erased"),
    ]);
    expect([withheld.status, erased.status]).toEqual([201, 201]);
    expect((await served("packs-list-b")).map((d) => d.pointer)).toEqual(["/data/victims/1/name"]);
    const all = await served("packs-list-b", as);
    expect(all.find((d) => d.pointer === "/data/victims/0/name")?.visibility).toBe("restricted");
    const notes = await served("packs-list-c", as);
    expect(notes.map((d) => d.pointer)).not.toContain("/data/victims/499/notes");
    expect(notes).toHaveLength(2499);
    // Two at once on one pack: each rewrite is conditional on the revision it read.
    const [again, more] = await Promise.all([
      redact("packs-erase-10", "packs-list-c", ["/data/victims/10/name"], "erased"),
      redact("packs-erase-11", "packs-list-c", ["/data/victims/11/name"], "erased"),
    ]);
    expect([again.status, more.status]).toEqual([201, 201]);
    const left = (await served("packs-list-c", as)).map((d) => d.pointer);
    expect(left).not.toContain("/data/victims/10/name");
    expect(left).not.toContain("/data/victims/11/name");
    expect(left).toHaveLength(2497);
  });
});

describe("the first layout (one item a value)", () => {
  const envelope = {
    eventId: "first-layout",
    type: "VictimsRecorded",
    source: AP,
    attributedTo: { name: "Regional registry" },
    data: {
      victims: [
        { name: "Ivan Old", age: 50, sex: "male" },
        { name: "Oksana Old", place: "Old Square" },
      ],
      disclose: { "/data/victims/0/name": "public", "/data/victims/1/name": "public" },
    },
  } as Envelope;

  beforeAll(async () => {
    // Stored as the code before packing stored it: the disclosures one item each, then the event.
    const { sealed, disclosures } = sealEnvelope(envelope, () => "b2xkLWxheW91dC1zYWx0LTE");
    const db = createDynamoClient(archive.dynamoEndpoint);
    await putFirstLayout(db, table, ID, "first-layout", disclosures);
    db.destroy();
    await archive.ledger.events.append({
      incidentId: ID,
      envelopes: [sealed],
      // The writer the token below is recorded as: its retry is then a repeat by the same writer.
      recordedBy: "test-writer",
      batched: false,
    });
    await archive.stream.projected(ID);
  });

  it("is read as it is: the public values for anyone, all for a restricted-reader", async () => {
    expect((await rows("first-layout")).map((i) => i.entries)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect((await served("first-layout")).map((d) => d.pointer)).toEqual([
      "/data/victims/0/name",
      "/data/victims/1/name",
    ]);
    const event = await stored("first-layout");
    for (const d of await served("first-layout", as))
      expect(checkDisclosure(event, d.pointer, d.disclosure)).toEqual({ ok: true });
  });

  it("is withheld and erased; a retry of its event is the first answer and never writes an erased value again", async () => {
    expect((await redact("old-withhold", "first-layout", ["/data/victims/0/name"], "withheld")).status).toBe(
      201,
    );
    expect((await redact("old-erase", "first-layout", ["/data/victims/1/name"], "erased")).status).toBe(201);
    expect((await served("first-layout")).map((d) => d.pointer)).toEqual([]);
    expect((await served("first-layout", as)).map((d) => d.pointer)).toEqual([
      "/data/victims/0/name",
      "/data/victims/0/age",
      "/data/victims/1/place",
    ]);
    const retry = await post(archive.url, ID, envelope);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const held = await new DisclosureStore(createDynamoClient(archive.dynamoEndpoint), table).ofEvent(
      ID,
      "first-layout",
    );
    const values = held.flatMap((h) => (h.erased ? [] : [decodeDisclosure(h.disclosure)?.value]));
    expect(values).not.toContain("Oksana Old");
    expect(held.filter((h) => h.packed)).toEqual([]);
  });
});
