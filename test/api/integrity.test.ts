import { createHash } from "node:crypto";
import { DeleteItemCommand, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import canonicalize from "canonicalize";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

/** What an outside reader does with GET …/events alone: no code of the archive involved. */
function recomputeChain(events: Record<string, unknown>[]): { ok: boolean; headHash: string } {
  let prev = "0".repeat(64);
  for (const [i, event] of events.entries()) {
    const { hash, ...covered } = event;
    const recomputed = createHash("sha256")
      .update(canonicalize(covered) as string)
      .digest("hex");
    if (event.version !== i + 1 || event.prevHash !== prev || recomputed !== hash)
      return { ok: false, headHash: prev };
    prev = hash as string;
  }
  return { ok: true, headHash: prev };
}

async function allEvents(id: string) {
  const items: Record<string, unknown>[] = [];
  let after = 0;
  for (;;) {
    const page = await call(archive.url, "GET", `/incidents/${id}/events?after=${after}&limit=3`);
    items.push(...page.body.items);
    if (page.body.next === null) return items;
    after = page.body.next;
  }
}

describe("the hash chain", () => {
  it("recomputes from GET …/events alone and matches /verify and the summary's headHash", async () => {
    const id = "chain-outside";
    await post(archive.url, id, opened());
    await post(archive.url, id, {
      events: [
        casualties({ killed: { value: 50, qualifier: "at-least" } }, "A"),
        casualties({ injured: { qualifier: "dozens", text: "many dozens" } }, "B"),
      ],
    });
    await post(archive.url, id, casualties({ present: { value: 4000, qualifier: "about" } }, "C"));
    const events = await allEvents(id);
    expect(events).toHaveLength(4);
    expect(events[0]?.prevHash).toBe("0".repeat(64));
    for (const e of events) {
      expect(e).toEqual(
        expect.objectContaining({
          incidentId: id,
          recordedBy: "test-writer",
          recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        }),
      );
    }
    const outside = recomputeChain(events);
    expect(outside.ok).toBe(true);
    const verify = await call(archive.url, "GET", `/incidents/${id}/verify`);
    expect(verify.body).toEqual(
      expect.objectContaining({ ok: true, version: 4, headHash: outside.headHash }),
    );
    expect((await call(archive.url, "GET", `/incidents/${id}?minVersion=4`)).body.headHash).toBe(
      outside.headHash,
    );
    const times = events.map((e) => e.recordedAt as string);
    expect([...times].sort()).toEqual(times);
  });

  it("/verify finds an event edited directly in the table and names its version", async () => {
    const id = "chain-tampered";
    await post(archive.url, id, opened());
    await post(archive.url, id, {
      events: [
        casualties({ killed: { value: 50, qualifier: "at-least" } }, "A"),
        casualties({ killed: { value: 60, qualifier: "exact" } }, "B"),
      ],
    });
    await post(archive.url, id, casualties({ killed: { value: 70, qualifier: "exact" } }, "C"));
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body.ok).toBe(true);

    // Someone with table access lowers a figure in version 3 (the second event of commit 2).
    const db = createDynamoClient(archive.dynamoEndpoint);
    const key = { incidentId: { S: id }, version: { N: "2" } };
    const item =
      (await db.send(new GetItemCommand({ TableName: archive.tables.events, Key: key }))).Item ?? {};
    const events = item.events?.L ?? [];
    events[1] = { S: (events[1]?.S ?? "").replace('"value":60', '"value":6') };
    await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: item }));

    const verify = await call(archive.url, "GET", `/incidents/${id}/verify`);
    expect(verify.body).toEqual(expect.objectContaining({ ok: false, firstBadVersion: 3 }));
    expect(recomputeChain(await allEvents(id)).ok).toBe(false);

    // An item whose JSON no longer parses is named too, unless an earlier break came first.
    const last = { incidentId: { S: id }, version: { N: "4" } };
    const lastItem =
      (await db.send(new GetItemCommand({ TableName: archive.tables.events, Key: last }))).Item ?? {};
    lastItem.events = { L: [{ S: "{ not json" }] };
    await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: lastItem }));
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body).toEqual(
      expect.objectContaining({ ok: false, firstBadVersion: 3 }),
    );
    events[1] = { S: (events[1]?.S ?? "").replace('"value":6', '"value":60') };
    await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: item }));
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body).toEqual(
      expect.objectContaining({
        ok: false,
        firstBadVersion: 4,
        reason: expect.stringContaining("unreadable"),
      }),
    );
    db.destroy();
  });

  it("/verify and the page find an incident whose last events were deleted from the table", async () => {
    const id = "chain-cut-short";
    await post(archive.url, id, opened());
    await post(archive.url, id, casualties({ killed: { value: 50, qualifier: "at-least" } }, "A"));
    await post(archive.url, id, casualties({ killed: { value: 70, qualifier: "exact" } }, "B"));
    await archive.stream.idle();
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body.ok).toBe(true);

    // Someone with table access deletes the last commit: what is left still links.
    const db = createDynamoClient(archive.dynamoEndpoint);
    await db.send(
      new DeleteItemCommand({
        TableName: archive.tables.events,
        Key: { incidentId: { S: id }, version: { N: "3" } },
      }),
    );
    db.destroy();
    expect(recomputeChain(await allEvents(id)).ok).toBe(true);
    const verify = await call(archive.url, "GET", `/incidents/${id}/verify`);
    expect(verify.body).toEqual(
      expect.objectContaining({
        ok: false,
        firstBadVersion: 3,
        reason: expect.stringContaining("events after 2 are missing"),
      }),
    );
    const page = await (await fetch(`${archive.url}/view/${id}`)).text();
    expect(page).not.toContain("Hash chain intact");
    expect(page).toContain("events after 2 are missing");
  });
});
