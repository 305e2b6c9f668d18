import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fold } from "../../events/summary.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createTables } from "../../functions/store/create-tables.js";
import { GroupedViewStore } from "../../functions/store/grouped-view-store.js";
import { GroupedWrites } from "../../functions/store/grouped-writes.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { startArchive } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";
import { longHistory } from "../support/long-history.js";

describe("group commit of writes (GroupedWrites)", () => {
  it("given a write under way, when callers add meanwhile, then they go out together in the next write, at most `limit` a write", async () => {
    const writes: number[][] = [];
    let release = () => {};
    const grouped = new GroupedWrites<number>(async (values) => {
      writes.push(values);
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    }, 3);
    const first = grouped.add(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[0]]);
    const later = [1, 2, 3, 4].map((v) => grouped.add(v));
    release();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[0], [1, 2, 3]]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all(later);
    expect(writes).toEqual([[0], [1, 2, 3], [4]]);
  });

  it("given two writes allowed under way, then a second goes out beside the first and the rest wait for one to end", async () => {
    const writes: number[][] = [];
    const releases: (() => void)[] = [];
    const grouped = new GroupedWrites<number>(
      async (values) => {
        writes.push(values);
        await new Promise<void>((resolve) => releases.push(resolve));
      },
      25,
      2,
    );
    const first = grouped.add(0);
    await new Promise((resolve) => setImmediate(resolve));
    const second = grouped.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[0], [1]]);
    const rest = [2, 3].map((v) => grouped.add(v));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[0], [1]]);
    releases[0]?.();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual([[0], [1], [2, 3]]);
    releases[1]?.();
    releases[2]?.();
    await Promise.all([second, ...rest]);
  });

  it("given a write that fails, then only its own callers see the error and the next group is written", async () => {
    const writes: string[][] = [];
    const grouped = new GroupedWrites<string>(async (values) => {
      writes.push(values);
      if (values.includes("bad")) throw new Error("store refused");
    }, 2);
    const outcomes = await Promise.allSettled(["bad", "same-batch", "next"].map((v) => grouped.add(v)));
    expect(writes).toEqual([["bad", "same-batch"], ["next"]]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "fulfilled"]);
  });
});

describe("views saved by the local feed thread's one projector (GroupedViewStore)", () => {
  let archive: LocalServer;
  beforeAll(async () => {
    archive = await startArchive();
  });
  afterAll(() => archive.close());

  const stateOf = (incidentId: string, length: number) =>
    fold(incidentId, longHistory(incidentId, length, length));

  it("views of incidents saved at once go out in one BatchWriteItem, each stored at its version", async () => {
    const { db, calls } = countedClient(archive.dynamoEndpoint);
    const tables = { events: "gv-events", claims: "gv-claims", views: "gv-views" };
    await createTables(db, tables);
    const views = new GroupedViewStore(db, tables.views);
    const states = Array.from({ length: 12 }, (_, k) => stateOf(`grouped-${k}`, 2 + k));
    calls.length = 0;
    expect(await Promise.all(states.map((s) => views.save(s)))).toEqual(states.map(() => true));
    expect(calls).toEqual(["BatchWriteItemCommand"]);
    for (const state of states) {
      const summary = await views.getSummary(state.incidentId);
      expect(summary?.version).toBe(state.version);
    }
    db.destroy();
  });

  it("two saves of one incident in one group store the newer, whatever their order", async () => {
    const { db } = countedClient(archive.dynamoEndpoint);
    const tables = { events: "gv2-events", claims: "gv2-claims", views: "gv2-views" };
    await createTables(db, tables);
    const views = new GroupedViewStore(db, tables.views);
    const older = stateOf("grouped-twice", 5);
    const newer = stateOf("grouped-twice", 9);
    await Promise.all([views.save(newer), views.save(older)]);
    const stored = await db.send(
      new GetItemCommand({ TableName: tables.views, Key: { incidentId: { S: "grouped-twice" } } }),
    );
    expect(stored.Item?.version?.N).toBe(String(newer.version));
    db.destroy();
  });

  it("after a batch refused for size, only the views stored one by one are reported saved (not one older than the store's)", async () => {
    const { db } = countedClient(archive.dynamoEndpoint);
    const tables = { events: "gv4-events", claims: "gv4-claims", views: "gv4-views" };
    await createTables(db, tables);
    // Another writer (a rebuild) stored version 9 of this incident.
    await new ViewStore(db, tables.views).save(stateOf("grouped-behind", 9));
    const reported: string[] = [];
    const views = new GroupedViewStore(db, tables.views, (item) =>
      reported.push(`${item.incidentId?.S}@${item.version?.N}`),
    );
    const older = stateOf("grouped-behind", 5);
    const huge = stateOf("grouped-huge-2", 6);
    if (!huge.opened) throw new Error("the history opens the incident");
    huge.opened.description = "d".repeat(420_000);
    await Promise.all([views.save(older), views.save(huge)]);
    expect(reported).toEqual([`grouped-huge-2@${huge.version}`]);
    db.destroy();
  });

  it("a group holding a view past DynamoDB's 400 KB item saves it bare and the others whole", async () => {
    const { db, calls } = countedClient(archive.dynamoEndpoint);
    const tables = { events: "gv3-events", claims: "gv3-claims", views: "gv3-views" };
    await createTables(db, tables);
    const views = new GroupedViewStore(db, tables.views);
    const small = stateOf("grouped-small", 4);
    const huge = stateOf("grouped-huge", 6);
    if (!huge.opened) throw new Error("the history opens the incident");
    huge.opened.description = "d".repeat(420_000);
    calls.length = 0;
    await Promise.all([views.save(small), views.save(huge)]);
    expect(calls[0]).toBe("BatchWriteItemCommand");
    expect(calls.slice(1)).toEqual(["PutItemCommand", "PutItemCommand", "PutItemCommand"]);
    expect((await views.getSummary("grouped-small"))?.version).toBe(small.version);
    const bare = await db.send(
      new GetItemCommand({ TableName: tables.views, Key: { incidentId: { S: "grouped-huge" } } }),
    );
    expect(bare.Item?.version?.N).toBe(String(huge.version));
    expect(bare.Item?.summary).toBeUndefined();
    db.destroy();
  });
});
