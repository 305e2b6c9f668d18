import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import type { EventStore } from "../../functions/store/event-store.js";
import { casualties, envelope, opened, startArchive } from "../support/archive.js";

// Several EventStores on one dynalite stand for several Lambdas: no shared lanes or caches,
// so every race is settled by the conditional writes alone.
let archive: LocalServer;
let stores: EventStore[];
beforeAll(async () => {
  archive = await startArchive();
  stores = Array.from(
    { length: 4 },
    () =>
      createLedger({
        db: createDynamoClient(archive.dynamoEndpoint),
        tables: archive.tables,
        log: silentLogger,
      }).events,
  );
});
afterAll(() => archive.close());

const append = (store: EventStore, incidentId: string, raw: unknown, expectedVersion?: number) =>
  store.append({
    incidentId,
    envelopes: [envelope(raw)],
    recordedBy: "racer",
    batched: false,
    ...(expectedVersion === undefined ? {} : { expectedVersion }),
  });

async function storedIds(incidentId: string) {
  const ids: string[] = [];
  const versions: number[] = [];
  for await (const e of (stores[0] as EventStore).events(incidentId)) {
    ids.push(e.eventId);
    versions.push(e.version);
  }
  return { ids, versions };
}

describe("writers in separate processes", () => {
  it("60 appends spread over 4 processes: all succeed, gapless, each once", async () => {
    const id = "race-processes";
    await append(stores[0] as EventStore, id, opened());
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        append(
          stores[i % 4] as EventStore,
          id,
          casualties({ killed: { value: i, qualifier: "exact" } }, `s${i}`, `race-p-${i}`),
        ),
      ),
    );
    expect(results.every((r) => r.created)).toBe(true);
    const { ids, versions } = await storedIds(id);
    expect(versions).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
    expect(new Set(ids).size).toBe(61);
  });

  it("the same eventId from every process at once is stored exactly once", async () => {
    const id = "race-same-id";
    await append(stores[0] as EventStore, id, opened());
    for (let round = 0; round < 10; round++) {
      // Interleave other writers so the twins also lose slots to strangers.
      const twin = casualties(
        { missing: { value: round, qualifier: "exact" } },
        "twin",
        `race-twin-${round}`,
      );
      const results = await Promise.all([
        ...stores.map((s) => append(s, id, twin)),
        append(
          stores[round % 4] as EventStore,
          id,
          casualties({ killed: { value: round, qualifier: "exact" } }, "other"),
        ),
      ]);
      expect(results.slice(0, 4).filter((r) => r.created)).toHaveLength(1);
      const versionsOfTwin = new Set(results.slice(0, 4).map((r) => r.events[0]?.version));
      expect(versionsOfTwin.size).toBe(1);
    }
    const { ids, versions } = await storedIds(id);
    expect(versions).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    expect(ids.filter((x) => x.startsWith("race-twin-"))).toHaveLength(10);
  });

  it("the same eventId with different content from two processes: one stored, one 409", async () => {
    const id = "race-diff";
    await append(stores[0] as EventStore, id, opened());
    const settled = await Promise.allSettled([
      append(
        stores[0] as EventStore,
        id,
        casualties({ killed: { value: 1, qualifier: "exact" } }, "x", "race-diff-id"),
      ),
      append(
        stores[1] as EventStore,
        id,
        casualties({ killed: { value: 2, qualifier: "exact" } }, "x", "race-diff-id"),
      ),
    ]);
    expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
    const rejected = settled.find((s) => s.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason.name).toBe("EventIdConflictError");
    expect((await storedIds(id)).versions).toEqual([1, 2]);
  });

  it("a put whose answer was lost and is retried by the SDK is one commit, answered 201", async () => {
    const id = "race-lost-answer";
    const db = createDynamoClient(archive.dynamoEndpoint);
    const send = db.send.bind(db);
    let dropped = 0;
    // The first commit put lands, its answer is lost, and the SDK sends it again.
    db.send = (async (command: { input?: { ConditionExpression?: string; TableName?: string } }) => {
      const isCommit =
        command.input?.TableName === archive.tables.events && command.input?.ConditionExpression;
      if (isCommit && dropped === 0) {
        dropped += 1;
        await send(command as never);
      }
      return send(command as never);
    }) as typeof db.send;
    const store = createLedger({ db, tables: archive.tables, log: silentLogger }).events;
    const first = await append(store, id, opened());
    expect(first).toMatchObject({ created: true, version: 1 });
    expect(dropped).toBe(1);
    const { versions } = await storedIds(id);
    expect(versions).toEqual([1]);
  });

  it("holds the cap on categories when another process added the last one", async () => {
    const id = "race-categories";
    const [a, b] = stores as [EventStore, EventStore];
    await append(a, id, opened());
    const figure = { value: 1, qualifier: "exact" };
    // Category names are letters: ca … cz, cax … czx, caxx …
    const cat = (i: number) => `c${String.fromCharCode(97 + (i % 26))}${"x".repeat(Math.floor(i / 26))}`;
    // 63 categories through process a, which then knows the incident's categories at its head.
    for (let batch = 0; batch < 63; batch += 21) {
      const figures = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [cat(batch + i), figure]));
      expect((await append(a, id, casualties(figures, `a${batch}`))).created).toBe(true);
    }
    // The 64th through process b: a's knowledge and its head are now one commit behind.
    expect((await append(b, id, casualties({ [cat(63)]: figure }, "b"))).created).toBe(true);
    // A 65th through a is refused, naming it, and nothing is stored.
    await expect(
      append(a, id, casualties({ [cat(64)]: figure }, "a-last")),
      "the 65th category",
    ).rejects.toMatchObject({
      status: 422,
    });
    expect((await storedIds(id)).versions).toHaveLength(5);
    // One it holds is still taken through either process.
    expect((await append(a, id, casualties({ [cat(63)]: figure }, "a-again"))).created).toBe(true);
  });
});
