import { DeleteItemCommand, GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { DynamoDBRecord } from "aws-lambda";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fold } from "../../events/summary.js";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { Projector } from "../../functions/projector/projector.js";
import { createStreamHandler } from "../../functions/projector/stream-handler.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { AP, call, casualties, opened, post, startArchive } from "../support/archive.js";
import { faultyClient } from "../support/faulty-client.js";
import { streamRecords as commitRecords } from "../support/stream-records.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const streamRecords = (incidentId: string) => commitRecords(archive.ledger.events, incidentId);

describe("the projector under at-least-once, out-of-order delivery", () => {
  it("duplicated and shuffled stream records end identical to a fresh rebuild", async () => {
    const id = "projector-shuffle";
    await post(archive.url, id, opened());
    for (let i = 0; i < 12; i++) {
      await post(
        archive.url,
        id,
        casualties(
          { killed: { value: 10 + i, qualifier: i % 3 ? "exact" : "at-least" } },
          `source-${i % 4}`,
          `proj-shuffle-${i}`,
        ),
      );
    }
    await post(archive.url, id, {
      type: "ReportRetracted",
      eventId: "proj-shuffle-retract",
      source: AP,
      attributedTo: { name: "AP" },
      data: { targetEventId: "proj-shuffle-11", reason: "misattributed" },
    });
    await archive.stream.idle();
    const reference = (await call(archive.url, "GET", `/incidents/${id}`)).body;
    expect(reference.version).toBe(14);
    const records = await streamRecords(id);

    await fc.assert(
      fc.asyncProperty(
        // At least once: every record, some of them again, in any order.
        fc.array(fc.constantFrom(...records), { maxLength: 26 }).chain((again) =>
          fc.shuffledSubarray([...records, ...again], {
            minLength: records.length + again.length,
            maxLength: records.length + again.length,
          }),
        ),
        fc.integer({ min: 1, max: 8 }),
        async (delivery, batchSize) => {
          // A second deployment's projector over a wiped view: it must rebuild from the store.
          const db = createDynamoClient(archive.dynamoEndpoint);
          await db.send(
            new DeleteItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }),
          );
          const fresh = createLedger({ db, tables: archive.tables, log: silentLogger });
          const handler = createStreamHandler(fresh.projector, silentLogger);
          for (let i = 0; i < delivery.length; i += batchSize) {
            const answer = await handler({ Records: delivery.slice(i, i + batchSize) });
            expect(answer.batchItemFailures).toEqual([]);
          }
          const view = await db.send(
            new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }),
          );
          expect(JSON.parse(view.Item?.summary?.S ?? "null")).toEqual(reference);
          db.destroy();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("a fold that fails halfway through an event leaves no half-folded state behind", async () => {
    const id = "projector-half-folded";
    await post(archive.url, id, opened());
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 50, qualifier: "at-least" } }, "Governor", "half-folded-a"),
    );
    await post(archive.url, id, casualties({ killed: { value: 57, qualifier: "exact" } }, "Police"));
    await post(archive.url, id, {
      type: "ReportRetracted",
      source: AP,
      attributedTo: { name: "AP" },
      data: { targetEventId: "half-folded-a", reason: "misattributed" },
    });
    await post(archive.url, id, casualties({ injured: { value: 98, qualifier: "exact" } }, "Police"));
    await archive.stream.idle();
    const reference = (await call(archive.url, "GET", `/incidents/${id}`)).body;
    const records = await streamRecords(id);

    // Another projector over a wiped view, whose store read fails once, mid-retraction: the
    // retraction's step has begun on the state when it asks for the retracted report.
    const db = createDynamoClient(archive.dynamoEndpoint);
    await db.send(new DeleteItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }));
    let armed = false;
    const faulty = faultyClient(archive.dynamoEndpoint, () => {
      if (!armed) return "none";
      armed = false;
      return "crash-before";
    });
    const handler = createStreamHandler(
      createLedger({ db: faulty, tables: archive.tables, log: silentLogger }).projector,
      silentLogger,
    );
    expect((await handler({ Records: records.slice(0, 3) })).batchItemFailures).toEqual([]);
    armed = true;
    expect((await handler({ Records: [records[3] as DynamoDBRecord] })).batchItemFailures).toHaveLength(1);
    expect(armed, "the retraction read the store").toBe(false);
    // Redelivered, then the next commit: the view is the one a clean fold makes.
    expect((await handler({ Records: records.slice(3) })).batchItemFailures).toEqual([]);
    const view = await db.send(
      new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }),
    );
    expect(JSON.parse(view.Item?.summary?.S ?? "null")).toEqual(reference);
    db.destroy();
    faulty.destroy();
  });

  it("a record that starts an incident is folded without a view read; redelivered after later ones, it changes nothing", async () => {
    const id = "projector-first-record";
    await post(archive.url, id, opened());
    await post(archive.url, id, casualties({ killed: { value: 3, qualifier: "exact" } }));
    await archive.stream.idle();
    const reference = (await call(archive.url, "GET", `/incidents/${id}`)).body;
    const records = await streamRecords(id);
    const db = createDynamoClient(archive.dynamoEndpoint);
    await db.send(new DeleteItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }));
    const calls: { command: string; table: string | undefined }[] = [];
    const counting = faultyClient(archive.dynamoEndpoint, (c) => {
      calls.push({ command: c.command, table: c.table });
      return "none";
    });
    const fresh = () =>
      createStreamHandler(
        createLedger({ db: counting, tables: archive.tables, log: silentLogger }).projector,
        silentLogger,
      );
    expect((await fresh()({ Records: [records[0] as DynamoDBRecord] })).batchItemFailures).toEqual([]);
    const viewReads = calls.filter((c) => c.table === archive.tables.views && c.command === "GetItemCommand");
    expect(viewReads).toEqual([]);
    // The rest, then the first again in a new process: the view stays the full fold.
    expect((await fresh()({ Records: records.slice(1) })).batchItemFailures).toEqual([]);
    expect((await fresh()({ Records: [records[0] as DynamoDBRecord] })).batchItemFailures).toEqual([]);
    const view = await db.send(
      new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }),
    );
    expect(JSON.parse(view.Item?.summary?.S ?? "null")).toEqual(reference);
    db.destroy();
    counting.destroy();
  });

  it("given fold states over the bytes it remembers, when it projects again, then only the newest are folded on without a view read", async () => {
    const ids = ["projector-weighed-a", "projector-weighed-b"];
    for (const id of ids) {
      await post(archive.url, id, opened());
      await post(archive.url, id, casualties({ killed: { value: 3, qualifier: "exact" } }));
    }
    // A views table of their own, so that these projectors fold from nothing.
    const db = createDynamoClient(archive.dynamoEndpoint);
    const own = (name: string) => ({ ...archive.tables, views: `${archive.tables.views}-${name}` });
    await createTables(db, own("weighed-small"));
    await createTables(db, own("weighed-default"));
    const viewReads: string[] = [];
    const counting = faultyClient(archive.dynamoEndpoint, (c) => {
      if (c.command === "GetItemCommand" && c.table.includes("-weighed-")) viewReads.push(c.table);
      return "none";
    });
    const projectorOver = (name: string, rememberedBytes?: number) =>
      new Projector(
        new EventStore({ db: counting, tables: archive.tables }),
        new ViewStore(counting, own(name).views),
        {
          ...(rememberedBytes === undefined ? {} : { rememberedBytes }),
        },
      );
    // One byte: only the state it folded last stays (the newest is kept even when over).
    const small = projectorOver("weighed-small", 1);
    const roomy = projectorOver("weighed-default");
    for (const projector of [small, roomy]) for (const id of ids) await projector.project(id);
    for (const id of ids)
      await post(archive.url, id, casualties({ killed: { value: 4, qualifier: "exact" } }));

    viewReads.length = 0;
    for (const id of [...ids].reverse()) expect((await small.project(id)).to).toBe(3);
    expect(viewReads).toEqual([own("weighed-small").views]);
    viewReads.length = 0;
    for (const id of ids) expect((await roomy.project(id)).to).toBe(3);
    expect(viewReads).toEqual([]);
    db.destroy();
    counting.destroy();
  });

  it("an old projection never overwrites a newer view", async () => {
    const id = "projector-stale";
    await post(archive.url, id, opened());
    await post(archive.url, id, casualties({ killed: { value: 1, qualifier: "exact" } }));
    await archive.stream.idle();
    const firstTwo = [];
    for await (const event of archive.ledger.events.events(id)) firstTwo.push(event);
    const stale = fold(id, firstTwo);
    await post(archive.url, id, casualties({ killed: { value: 2, qualifier: "exact" } }, "Other"));
    await archive.stream.idle();
    // A late, duplicated projection of version 2 must be refused by the view's version condition.
    expect((await archive.ledger.views.save(stale)).saved).toBe(false);
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(3);
  });

  it("a poisoned record is reported in batchItemFailures; the rest of the batch is projected", async () => {
    const id = "projector-poison";
    await post(archive.url, id, opened());
    const good = await streamRecords(id);
    const poisoned: DynamoDBRecord = {
      ...(good[0] as DynamoDBRecord),
      eventID: "poison",
      dynamodb: { SequenceNumber: "999999999999999999999", Keys: {}, NewImage: {} },
    };
    const handler = createStreamHandler(archive.ledger.projector, silentLogger);
    const answer = await handler({ Records: [...good, poisoned] });
    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: "999999999999999999999" }]);
  });

  it("a view that outgrows DynamoDB's 400 KB item is saved bare, and reads fold the events instead of serving it stale", async () => {
    const id = "projector-oversized";
    await post(archive.url, id, opened());
    const long = (n: number, i: number) => `${i}:${"evidence ".repeat(n / 9)}`.slice(0, n);
    for (let batch = 0; batch < 4; batch++) {
      const events = Array.from({ length: 25 }, (_, k) => ({
        type: "DenialIssued",
        source: AP,
        attributedTo: { name: `Ministry ${batch}-${k}` },
        data: { claim: long(2000, batch * 25 + k), counterClaim: long(2000, -(batch * 25 + k)) },
      }));
      expect((await post(archive.url, id, { events })).status).toBe(201);
    }
    await archive.stream.idle();
    const db = createDynamoClient(archive.dynamoEndpoint);
    const view = await db.send(
      new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }),
    );
    expect(view.Item?.version?.N).toBe("101");
    expect(view.Item?.summary).toBeUndefined();
    const summary = await call(archive.url, "GET", `/incidents/${id}`);
    expect(summary.body).toMatchObject({ version: 101, contested: true });
    // The answer is bounded all the same (a summary is at most 256 KB): the count says 100.
    expect(summary.body.denialCount).toBe(100);
    expect(Buffer.byteLength(JSON.stringify(summary.body))).toBeLessThanOrEqual(256 * 1024);
    const listed = (await call(archive.url, "GET", "/incidents?limit=100")).body.items;
    expect(listed.find((s: { incidentId: string }) => s.incidentId === id)?.version).toBe(101);
  });
});
