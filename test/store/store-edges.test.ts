import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { createStreamHandler } from "../../functions/projector/stream-handler.js";
import { EventStore } from "../../functions/store/event-store.js";
import { streamEvent, streamInsert } from "../infra/lambda-events.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";
import { faultyClient, InjectedCrashError } from "../support/faulty-client.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const ids = async (id: string) =>
  (await call(archive.url, "GET", `/incidents/${id}/events`)).body.items.map(
    (e: { eventId: string }) => e.eventId,
  );
const listed = async () =>
  (await call(archive.url, "GET", "/incidents?limit=100")).body.items.map(
    (s: { incidentId: string }) => s.incidentId,
  );

describe("issue 8, item 1: no incident id collides with a sentinel", () => {
  it("an incident named `ignore` is projected and listed", async () => {
    expect((await post(archive.url, "ignore", opened())).status).toBe(201);
    await archive.stream.idle();
    expect(await listed()).toContain("ignore");
    expect((await call(archive.url, "GET", "/incidents/ignore")).body.version).toBe(1);
  });

  it("the stream handler projects a real INSERT record for it and skips only non-commit records", async () => {
    await post(archive.url, "ignore", casualties({ killed: { value: 1, qualifier: "exact" } }));
    const items = [];
    for await (const item of archive.ledger.events.commitItems("ignore")) items.push(item);
    const last = items[items.length - 1] ?? {};
    const seen: string[] = [];
    const projector = {
      project: async (incidentId: string) => {
        seen.push(incidentId);
        return { incidentId, from: 0, to: 0, saved: false };
      },
    };
    const handler = createStreamHandler(projector as never, silentLogger);
    const claimRecord = streamInsert(
      archive.tables.claims,
      { eventId: { S: "not-a-commit" } },
      { eventId: { S: "not-a-commit" }, itemType: { S: "claim" } },
    );
    const answer = await handler(
      streamEvent([
        streamInsert(
          archive.tables.events,
          { incidentId: last.incidentId as never, version: last.version as never },
          last,
        ),
        claimRecord,
      ]),
    );
    expect(answer.batchItemFailures).toEqual([]);
    expect(seen).toEqual(["ignore"]);
  });
});

describe("issue 8, item 2: a retried mixed batch", () => {
  const batch = (tag: string) => ({
    events: [
      casualties({ killed: { value: 5, qualifier: "exact" } }, "Mayor", `mixed-${tag}-with-id`),
      casualties({ injured: { value: 7, qualifier: "exact" } }, "Police"),
    ],
  });

  it("posted again after a lost answer answers 200 with the first answer and stores nothing", async () => {
    const id = "mixed-retry";
    await post(archive.url, id, opened());
    const first = await post(archive.url, id, batch("a"));
    expect(first.status).toBe(201);
    const again = await post(archive.url, id, batch("a"));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const withIfMatch = await post(archive.url, id, batch("a"), { "If-Match": '"1"' });
    expect(withIfMatch.status).toBe(200);
    expect(withIfMatch.body).toEqual(first.body);
    expect(await ids(id)).toHaveLength(3);
  });

  it("a batch whose id is stored beside other events is refused without inviting a duplicate", async () => {
    const id = "mixed-differs";
    await post(archive.url, id, opened());
    expect((await post(archive.url, id, batch("b"))).status).toBe(201);
    const changed = batch("b");
    changed.events[1] = casualties({ injured: { value: 8, qualifier: "exact" } }, "Police");
    const refused = await post(archive.url, id, changed);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).not.toMatch(/post the remaining events/);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        path: "events[0].eventId",
        message: expect.stringContaining("already stored"),
      }),
    ]);
    expect(await ids(id)).toHaveLength(3);
  });
});

describe("issue 8, item 3: every outcome that may have stored something reaches the local projector", () => {
  it("a commit whose put landed but whose answer was lost", async () => {
    const id = "lost-answer";
    await post(archive.url, id, opened());
    await archive.stream.idle();
    const db = faultyClient(archive.dynamoEndpoint, (c) =>
      c.command === "PutItemCommand" && c.table === archive.tables.events ? "crash-after" : "none",
    );
    const store = new EventStore({
      db,
      tables: archive.tables,
      onCommit: (item) => archive.stream.publish(item),
    });
    await expect(
      store.append({
        incidentId: id,
        envelopes: [casualties({ killed: { value: 3, qualifier: "exact" } }) as never],
        recordedBy: "test-writer",
        batched: false,
      }),
    ).rejects.toBeInstanceOf(InjectedCrashError);
    await archive.stream.idle();
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(2);
    db.destroy();
  });

  it("a replay answered 200 of a commit the local feed never saw", async () => {
    const id = "replay-feeds";
    await post(archive.url, id, opened());
    const event = casualties({ killed: { value: 4, qualifier: "exact" } }, "Mayor", "replay-feeds-toll");
    // Another writer (say, a process that died right after its put) stored it without telling anyone.
    const db = faultyClient(archive.dynamoEndpoint, () => "none");
    const other = new EventStore({ db, tables: archive.tables });
    await other.append({
      incidentId: id,
      envelopes: [event as never],
      recordedBy: "test-writer",
      batched: false,
    });
    await archive.stream.idle();
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(1);
    expect((await post(archive.url, id, event)).status).toBe(200);
    await archive.stream.idle();
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(2);
    db.destroy();
  });
});

describe("issue 8, item 5: a claim left by a crash is bounded in time", () => {
  it("an id reserved by a crashed append elsewhere is freed once the claim is older than any writer lives", async () => {
    let clock = Date.parse("2026-11-30T10:00:00.000Z");
    const now = () => new Date(clock).toISOString();
    await post(archive.url, "claim-crashed", opened());
    await post(archive.url, "claim-elsewhere", opened());
    const envelopes = [
      casualties({ killed: { value: 9, qualifier: "exact" } }, "Mayor", "claim-left-behind") as never,
    ];
    // The writer crashes right after its claim, before its commit.
    const crashing = faultyClient(archive.dynamoEndpoint, (c) =>
      c.command === "PutItemCommand" && c.table === archive.tables.events ? "crash-before" : "none",
    );
    const dying = new EventStore({ db: crashing, tables: archive.tables, now });
    await expect(
      dying.append({ incidentId: "claim-crashed", envelopes, recordedBy: "w", batched: false }),
    ).rejects.toBeInstanceOf(InjectedCrashError);

    const db = faultyClient(archive.dynamoEndpoint, () => "none");
    const store = new EventStore({ db, tables: archive.tables, now });
    const append = () =>
      store.append({ incidentId: "claim-elsewhere", envelopes, recordedBy: "w", batched: false });
    clock += 5 * 60_000;
    await expect(append()).rejects.toMatchObject({ name: "EventIdConflictError" });
    clock += 60 * 60_000;
    await expect(append()).resolves.toMatchObject({ created: true, version: 2 });
    // The crashed writer's retry now meets its id stored elsewhere: never a second copy.
    await expect(
      store.append({ incidentId: "claim-crashed", envelopes, recordedBy: "w", batched: false }),
    ).rejects.toMatchObject({ name: "EventIdConflictError" });
    expect(await ids("claim-crashed")).toHaveLength(1);
    crashing.destroy();
    db.destroy();
  });
});

describe("the reader's lookups and the streamed chain check", () => {
  it("eventAt and findEvent find one event without reading the incident, and nothing of another", async () => {
    const id = "lookups";
    await post(archive.url, id, opened("lookups-opened"));
    const batch = await post(archive.url, id, {
      events: [
        casualties({ killed: { value: 1, qualifier: "exact" } }, "A", "lookups-a"),
        casualties({ killed: { value: 2, qualifier: "exact" } }, "B"),
      ],
    });
    const serverMade = batch.body.events[1].eventId as string;
    const store = archive.ledger.events;
    expect(await store.eventAt(id, 3)).toMatchObject({ version: 3, eventId: serverMade });
    expect(await store.eventAt(id, 2)).toMatchObject({ version: 2, eventId: "lookups-a" });
    expect(await store.eventAt(id, 4)).toBeNull();
    expect(await store.eventAt(id, 0)).toBeNull();
    expect(await store.findEvent(id, "lookups-a")).toMatchObject({ version: 2 });
    expect(await store.findEvent(id, serverMade)).toMatchObject({ version: 3 });
    expect(await store.findEvent("lookups-other", "lookups-a")).toBeNull();
    expect(await store.findEvent("lookups-other", serverMade)).toBeNull();
    expect(await store.findEvent(id, "lookups-never")).toBeNull();
  });

  it("/verify reads the incident page by page and says how many events it checked", async () => {
    const id = "verify-pages";
    await post(archive.url, id, opened());
    const long = (i: number) => `${i}:${"evidence ".repeat(230)}`.slice(0, 2000);
    for (let batch = 0; batch < 11; batch++) {
      const events = Array.from({ length: 25 }, (_, k) => ({
        type: "DenialIssued",
        source: { publisher: "AP" },
        attributedTo: { name: `Ministry ${batch}-${k}` },
        data: { claim: long(batch * 25 + k), counterClaim: long(-(batch * 25 + k)) },
      }));
      expect((await post(archive.url, id, { events })).status).toBe(201);
    }
    const verify = await call(archive.url, "GET", `/incidents/${id}/verify`);
    expect(verify.body).toMatchObject({ ok: true, version: 276, checked: 276 });
    // Over 1 MB of items: DynamoDB (and dynalite) answer in pages, and the check follows them.
    const queries: string[] = [];
    const db = faultyClient(archive.dynamoEndpoint, (c) => {
      if (c.command === "QueryCommand") queries.push(c.command);
      return "none";
    });
    const store = new EventStore({ db, tables: archive.tables });
    expect(await store.verify(id)).toMatchObject({ ok: true, checked: 276 });
    expect(queries.length).toBeGreaterThan(1);
    db.destroy();
  });

  it("the listing's kind filter takes the kind rule of the schema (1–63 characters after the first)", async () => {
    expect((await call(archive.url, "GET", "/incidents?kind=a")).status).toBe(400);
    expect((await call(archive.url, "GET", "/incidents?kind=ab")).status).toBe(200);
  });
});

describe("issue 8, item 5: a retry re-takes its claim and restarts its clock", () => {
  it("a claim re-taken by a retry that crashed again is not free until 30 minutes after the retry", async () => {
    let clock = Date.parse("2026-11-30T12:00:00.000Z");
    const now = () => new Date(clock).toISOString();
    await post(archive.url, "retake-crashed", opened());
    await post(archive.url, "retake-elsewhere", opened());
    const envelopes = [
      casualties({ killed: { value: 9, qualifier: "exact" } }, "Mayor", "retake-left-behind") as never,
    ];
    const crashAppend = async () => {
      const crashing = faultyClient(archive.dynamoEndpoint, (c) =>
        c.command === "PutItemCommand" && c.table === archive.tables.events ? "crash-before" : "none",
      );
      const dying = new EventStore({ db: crashing, tables: archive.tables, now });
      await expect(
        dying.append({ incidentId: "retake-crashed", envelopes, recordedBy: "w", batched: false }),
      ).rejects.toBeInstanceOf(InjectedCrashError);
      crashing.destroy();
    };
    await crashAppend();
    clock += 25 * 60_000;
    await crashAppend(); // the retry re-takes the claim, then dies before its commit too
    clock += 10 * 60_000; // 35 minutes after the first claim, 10 after the retry
    const db = faultyClient(archive.dynamoEndpoint, () => "none");
    const store = new EventStore({ db, tables: archive.tables, now });
    const append = () =>
      store.append({ incidentId: "retake-elsewhere", envelopes, recordedBy: "w", batched: false });
    await expect(append()).rejects.toMatchObject({ name: "EventIdConflictError" });
    clock += 21 * 60_000;
    await expect(append()).resolves.toMatchObject({ created: true });
    db.destroy();
  });
});
