import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const versions = async (id: string) =>
  (await call(archive.url, "GET", `/incidents/${id}/events`)).body.items.map(
    (e: { eventId: string }) => e.eventId,
  );

describe("idempotency by eventId", () => {
  it("the same event posted again answers 200 with the first body and stores nothing", async () => {
    const id = "idem-again";
    const first = await post(archive.url, id, opened("idem-again-open"));
    expect(first.status).toBe(201);
    const again = await post(archive.url, id, opened("idem-again-open"));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("etag")).toBe('"1"');
    const report = casualties(
      { killed: { value: 50, qualifier: "at-least" } },
      "Governor",
      "idem-again-toll",
    );
    const stored = await post(archive.url, id, report);
    expect(stored.status).toBe(201);
    expect((await post(archive.url, id, report)).body).toEqual(stored.body);
    expect(await versions(id)).toEqual(["idem-again-open", "idem-again-toll"]);
  });

  it("two identical requests at once are stored once: one 201, one 200", async () => {
    const id = "idem-twins";
    await post(archive.url, id, opened());
    for (let round = 0; round < 5; round++) {
      const event = casualties(
        { injured: { value: round, qualifier: "exact" } },
        "Mayor",
        `idem-twin-${round}`,
      );
      const [a, b] = await Promise.all([post(archive.url, id, event), post(archive.url, id, event)]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      expect(a.body).toEqual(b.body);
    }
    // Same again with If-Match: the loser must still get the replay, not a 409.
    const event = casualties({ injured: { value: 9, qualifier: "exact" } }, "Mayor", "idem-twin-if-match");
    const [a, b] = await Promise.all([
      post(archive.url, id, event, { "If-Match": '"6"' }),
      post(archive.url, id, event, { "If-Match": '"6"' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(await versions(id)).toHaveLength(7);
  });

  it("the same id with different content is a 409, and nothing is stored", async () => {
    const id = "idem-different";
    await post(archive.url, id, opened());
    await post(archive.url, id, casualties({ killed: { value: 5, qualifier: "exact" } }, "A", "idem-diff-1"));
    const changed = await post(
      archive.url,
      id,
      casualties({ killed: { value: 6, qualifier: "exact" } }, "A", "idem-diff-1"),
    );
    expect(changed.status).toBe(409);
    expect(changed.headers.get("content-type")).toContain("application/problem+json");
    expect(changed.body.errors[0].path).toBe("eventId");
    expect(await versions(id)).toHaveLength(2);
  });

  it("an opening resent with other content is named by its id, not as a second opening", async () => {
    const id = "idem-opening-changed";
    const first = opened("idem-opening-changed-open");
    expect((await post(archive.url, id, first)).status).toBe(201);
    const changed = await post(archive.url, id, {
      ...first,
      data: { ...first.data, title: "Another title" },
    });
    expect(changed.status).toBe(409);
    expect(changed.body.type).toMatch(/#problem-event-id-conflict$/);
    expect(changed.body.errors).toEqual([
      {
        path: "eventId",
        message: "idem-opening-changed-open is already stored (version 1) with different content",
      },
    ]);
    // Without an id it is what it says: a second opening of an incident that exists.
    const { eventId: _, ...anonymous } = first;
    const second = await post(archive.url, id, anonymous);
    expect(second.body.type).toMatch(/#problem-incident-exists$/);
    expect(await versions(id)).toEqual(["idem-opening-changed-open"]);
  });

  it("an eventId is unique across the archive: reuse on another incident is a 409", async () => {
    await post(archive.url, "idem-first-home", opened("idem-shared-id"));
    const elsewhere = await post(archive.url, "idem-second-home", opened("idem-shared-id"));
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.detail).toContain("idem-first-home");
    expect((await call(archive.url, "GET", "/incidents/idem-second-home")).status).toBe(404);
  });

  it("an id the server made can only repeat its own event: elsewhere it is a 409, at once", async () => {
    const event = casualties({ killed: { value: 3, qualifier: "exact" } }, "Police");
    await post(archive.url, "idem-server-id", opened());
    const made = await post(archive.url, "idem-server-id", event);
    const serverId = made.body.events[0].eventId;
    expect(serverId).toMatch(/^ev_[0-9a-f]{32}_2$/);
    // No projection has to run first: the id itself says where its event lives.
    const elsewhere = await post(archive.url, "idem-other", opened(serverId));
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.errors[0]).toEqual({
      path: "eventId",
      message: `${serverId} has the form of the ids this archive makes (ev_…) for another incident's events; choose another eventId`,
    });
    const repeated = await post(archive.url, "idem-server-id", { ...event, eventId: serverId });
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(made.body);
    const changed = await post(archive.url, "idem-server-id", {
      ...casualties({ killed: { value: 4, qualifier: "exact" } }, "Police"),
      eventId: serverId,
    });
    expect(changed.status).toBe(409);
    const future = await post(archive.url, "idem-server-id", {
      ...event,
      eventId: serverId.replace(/_2$/, "_9"),
    });
    expect(future.status).toBe(409);
    expect((await call(archive.url, "GET", "/incidents/idem-server-id/events")).body.items).toHaveLength(2);
  });

  it("a refused batch leaves its other ids free for use elsewhere", async () => {
    await post(archive.url, "idem-batch-a", opened("idem-batch-a-open"));
    const refused = await post(archive.url, "idem-batch-b", {
      events: [
        opened("idem-batch-b-open"),
        casualties({ killed: { value: 1, qualifier: "exact" } }, "X", "idem-batch-a-open"),
      ],
    });
    expect(refused.status).toBe(409);
    expect((await post(archive.url, "idem-batch-c", opened("idem-batch-b-open"))).status).toBe(201);
  });

  it("a batch refused for mixing a stored event with new ones leaves the new ids free too", async () => {
    const first = await post(archive.url, "idem-mixed-a", opened());
    const madeId = first.body.events[0].eventId;
    const mixed = await post(archive.url, "idem-mixed-a", {
      events: [
        { ...opened(), eventId: madeId },
        casualties({ killed: { value: 1, qualifier: "exact" } }, "X", "idem-mixed-new"),
      ],
    });
    expect(mixed.status).toBe(409);
    expect((await post(archive.url, "idem-mixed-b", opened("idem-mixed-new"))).status).toBe(201);
  });

  it("a retry after a crash between claim and commit stores the event once", async () => {
    const id = "idem-crash";
    await post(archive.url, id, opened());
    // What a writer that died after its claim and before its commit leaves behind.
    const db = createDynamoClient(archive.dynamoEndpoint);
    await db.send(
      new PutItemCommand({
        TableName: archive.tables.claims,
        Item: {
          eventId: { S: "idem-crash-toll" },
          incidentId: { S: id },
          slot: { N: "2" },
          claimedAt: { S: "x" },
        },
      }),
    );
    const event = casualties({ killed: { value: 1, qualifier: "exact" } }, "B", "idem-crash-toll");
    const retry = await post(archive.url, id, event);
    expect(retry.status).toBe(201);
    expect((await post(archive.url, id, event)).status).toBe(200);
    // And when the slot the dead claim named was filled by someone else meanwhile:
    await db.send(
      new PutItemCommand({
        TableName: archive.tables.claims,
        Item: {
          eventId: { S: "idem-crash-late" },
          incidentId: { S: id },
          slot: { N: "3" },
          claimedAt: { S: "x" },
        },
      }),
    );
    await post(archive.url, id, casualties({ killed: { value: 2, qualifier: "exact" } }, "C"));
    const late = await post(
      archive.url,
      id,
      casualties({ killed: { value: 3, qualifier: "exact" } }, "D", "idem-crash-late"),
    );
    expect(late.status).toBe(201);
    expect(late.body.version).toBe(4);
    expect(await versions(id)).toHaveLength(4);
    db.destroy();
  });
});

describe("batches", () => {
  it("a batch is stored whole with consecutive versions", async () => {
    const id = "batch-whole";
    const answer = await post(archive.url, id, {
      events: [
        opened("batch-whole-1"),
        casualties({ killed: { value: 1, qualifier: "exact" } }, "A", "batch-whole-2"),
      ],
    });
    expect(answer.status).toBe(201);
    expect(answer.body.version).toBe(2);
    expect(answer.body.events.map((e: { version: number }) => e.version)).toEqual([1, 2]);
  });

  it("a batch with one invalid event stores nothing and names the field", async () => {
    const id = "batch-invalid";
    await post(archive.url, id, opened());
    const answer = await post(archive.url, id, {
      events: [
        casualties({ killed: { value: 1, qualifier: "exact" } }, "A", "batch-invalid-ok"),
        { ...casualties({ killed: { value: -3, qualifier: "exact" } }, "B"), source: {} },
      ],
    });
    expect(answer.status).toBe(422);
    const paths = answer.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toContain("events[1].source.publisher");
    expect(paths).toContain("events[1].data.figures.killed.value");
    expect(await versions(id)).toHaveLength(1);
    // The valid event's id was not consumed: it can be stored on its own.
    const alone = await post(
      archive.url,
      id,
      casualties({ killed: { value: 1, qualifier: "exact" } }, "A", "batch-invalid-ok"),
    );
    expect(alone.status).toBe(201);
  });

  it("a batch whose target is missing stores nothing (422)", async () => {
    const id = "batch-bad-target";
    await post(archive.url, id, opened());
    const answer = await post(archive.url, id, {
      events: [
        casualties({ killed: { value: 1, qualifier: "exact" } }, "A"),
        {
          type: "ReportRetracted",
          source: { publisher: "AP" },
          attributedTo: { name: "AP" },
          data: { targetEventId: "nope-nope-nope", reason: "x" },
        },
      ],
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].path).toBe("events[1].data.targetEventId");
    expect(await versions(id)).toHaveLength(1);
  });

  it("1–25 events: 0 and 26 are refused", async () => {
    const none = await post(archive.url, "batch-sizes", { events: [] });
    expect(none.status).toBe(422);
    const many = await post(archive.url, "batch-sizes", {
      events: Array.from({ length: 26 }, () => opened()),
    });
    expect(many.status).toBe(422);
    expect((await call(archive.url, "GET", "/incidents/batch-sizes")).status).toBe(404);
  });
});
