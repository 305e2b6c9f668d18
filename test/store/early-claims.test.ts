import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../events/schemas.js";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { ClaimTable } from "../../functions/store/claims.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { AP, casualties, envelope, opened, startArchive } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";

/**
 * A one-event append with a client id that waits for its turn on an incident claims its id
 * meanwhile, for the slot the appends ahead of it leave it (append-queue.ts). These say that the
 * claim is made early, and that it never outlives a turn that does not use it.
 */
let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const report = (eventId?: string) =>
  envelope(casualties({ killed: { value: 3, qualifier: "exact" } }, "Mayor", eventId));

async function openedIncident(incidentId: string) {
  const counted = countedClient(archive.dynamoEndpoint);
  const { events } = createLedger({ db: counted.db, tables: archive.tables, log: silentLogger });
  const append = (envelopes: Envelope[], more: { expectedVersion?: number } = {}) =>
    events.append({ incidentId, envelopes, recordedBy: "desk", batched: false, ...more });
  await append([envelope(opened())]);
  return { ...counted, append };
}

async function claimOf(eventId: string) {
  const db = createDynamoClient(archive.dynamoEndpoint);
  const out = await db.send(
    new GetItemCommand({
      TableName: archive.tables.claims,
      Key: { eventId: { S: eventId } },
      ConsistentRead: true,
    }),
  );
  db.destroy();
  return out.Item;
}

describe("a client id waiting for its turn", () => {
  it("given appends queued on one incident, when each carries one client id, then the waiting ones claim theirs before the first commit, and every turn after is one commit put", async () => {
    const { append, sent, db } = await openedIncident("early-claims-queue");
    sent.length = 0;
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => append([report(`early-q-${i}`)])));

    expect(results.map((r) => r.created)).toEqual([true, true, true, true, true, true]);
    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    const puts = sent.filter((s) => s.command === "PutItemCommand").map((s) => s.table);
    const firstCommit = puts.indexOf(archive.tables.events);
    expect(puts.slice(0, firstCommit).filter((t) => t === archive.tables.claims)).toHaveLength(6);
    expect(puts.slice(firstCommit), "after the first commit, commits only").toEqual(
      Array(6).fill(archive.tables.events),
    );
    for (const r of results) {
      const [event] = r.events;
      expect((await claimOf(event?.eventId ?? ""))?.slot?.N).toBe(String(r.version));
    }
    db.destroy();
  });

  it("given the append ahead is refused, when the waiting one's turn finds another slot than it claimed, then it frees that claim and stores its event once, at the slot it gets", async () => {
    const { append, db } = await openedIncident("early-claims-moved");
    const [ahead, waiting] = await Promise.allSettled([
      append([report()], { expectedVersion: 7 }),
      append([report("early-moved")]),
    ]);
    expect(ahead.status === "rejected" && (ahead.reason as Error).name).toBe("VersionConflictError");
    expect(waiting.status === "fulfilled" && waiting.value.version).toBe(2);
    expect((await claimOf("early-moved"))?.slot?.N).toBe("2");

    const again = await append([report("early-moved")]);
    expect(again).toMatchObject({ created: false, version: 2 });
    db.destroy();
  });

  it("given a waiting append is refused at its turn, when its id is sent again to another incident, then it is stored there: the refused turn left no claim", async () => {
    const first = await openedIncident("early-claims-refused");
    const retraction = envelope({
      eventId: "early-refused",
      type: "ReportRetracted",
      source: AP,
      attributedTo: { name: "AP" },
      data: { targetEventId: "no-such-event", reason: "typo" },
    });
    const [ahead, refused] = await Promise.allSettled([first.append([report()]), first.append([retraction])]);
    expect(ahead.status).toBe("fulfilled");
    expect(refused.status === "rejected" && (refused.reason as Error).message).toMatch(/targetEventId/);
    expect((await claimOf("early-refused"))?.slot, "no claim names a slot for it").toBeUndefined();

    const other = await openedIncident("early-claims-other");
    const stored = await other.append([report("early-refused")]);
    expect(stored).toMatchObject({ created: true, version: 2 });
    first.db.destroy();
    other.db.destroy();
  });
});

describe("releasing a claim", () => {
  it("given a claim its writer holds, when a retry of the append takes it over, then the first writer's release leaves it in place", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const claims = new ClaimTable(db, archive.tables.claims, () => new Date().toISOString());
    const held = claims.hold({ eventId: "release-held", incidentId: "release-incident", slot: 4 });
    expect(await claims.tryClaim(held)).toBe(true);
    expect(
      await claims.move(held, { incidentId: "release-incident", slot: 4 }),
      "the retry re-takes it",
    ).toBe(true);

    expect(await claims.release(held)).toBe(false);
    expect(await claims.get("release-held")).toMatchObject({ incidentId: "release-incident", slot: 4 });

    const mine = claims.hold({ eventId: "release-free", incidentId: "release-incident", slot: 5 });
    await claims.tryClaim(mine);
    expect(await claims.release(mine)).toBe(true);
    expect(await claims.get("release-free"), "a released id is free").toBeNull();
    expect(
      await claims.tryClaim(claims.hold({ eventId: "release-free", incidentId: "other", slot: 2 })),
    ).toBe(true);
    db.destroy();
  });
});
