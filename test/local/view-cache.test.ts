import { GetItemCommand, UpdateItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { ViewCache } from "../../functions/local/view-cache.js";
import { silentLogger } from "../../functions/log.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";

const view = (version: number) => ({ version, json: `{"version":${version}}` });

describe("the request thread's view cache (ViewCache)", () => {
  it("given a kept view, when it is invalidated, then it is no longer served", () => {
    const cache = new ViewCache();
    cache.keep("a", cache.mark(), view(3));
    expect(cache.get("a")?.version).toBe(3);
    cache.invalidate("a");
    expect(cache.get("a")).toBeUndefined();
  });

  it("given a view the feed thread saved, then it replaces the copy, and a read begun before it is not kept", () => {
    const cache = new ViewCache();
    cache.keep("a", cache.mark(), view(3));
    const before = cache.mark();
    cache.saved("a", view(5));
    expect(cache.get("a")?.version).toBe(5);
    cache.keep("a", before, view(4));
    expect(cache.get("a")?.version).toBe(5);
  });

  it("given a read that began before its incident was invalidated, then what it read is not kept", () => {
    const cache = new ViewCache();
    const before = cache.mark();
    cache.invalidate("a");
    cache.invalidate("b");
    cache.keep("a", before, view(3));
    expect(cache.get("a")).toBeUndefined();
    // Another incident's invalidation does not stop a read of this one from being kept.
    const mark = cache.mark();
    cache.invalidate("b");
    cache.keep("a", mark, view(4));
    expect(cache.get("a")?.version).toBe(4);
  });

  it("given more invalidations than it remembers, then reads begun before the forgotten ones are not kept", () => {
    const cache = new ViewCache();
    const before = cache.mark();
    cache.invalidate("x");
    for (let i = 0; i < 10_001; i++) cache.invalidate(`other-${i}`);
    cache.keep("x", before, view(1));
    expect(cache.get("x")).toBeUndefined();
    cache.keep("x", cache.mark(), view(2));
    expect(cache.get("x")?.version).toBe(2);
  });

  it("given a view older than maxAgeMs, then it is read again", () => {
    let now = 1_000;
    const cache = new ViewCache({ maxAgeMs: 500, now: () => now });
    cache.keep("a", cache.mark(), view(1));
    now += 500;
    expect(cache.get("a")?.version).toBe(1);
    now += 1;
    expect(cache.get("a")).toBeUndefined();
  });

  it("given more text than maxChars, then the least recently used views go first", () => {
    const cache = new ViewCache({ maxChars: 16 * 40 });
    const text = (n: number) => ({ version: n, json: "x".repeat(30) });
    cache.keep("a", cache.mark(), text(1));
    cache.keep("b", cache.mark(), text(2));
    cache.get("a");
    for (let i = 0; i < 20; i++) cache.keep(`c${i}`, cache.mark(), text(3));
    expect(cache.get("a")?.version).toBe(1);
    expect(cache.get("b")).toBeUndefined();
  });
});

describe("summary reads through the cache on the local server", () => {
  let archive: LocalServer;
  beforeAll(async () => {
    archive = await startArchive();
  });
  afterAll(() => archive.close());

  it("every read after an acknowledged append shows it, with readers keeping the view cached between appends", async () => {
    const id = "cached-reads";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    let stop = false;
    let reads = 0;
    // Readers keep the incident's view in the cache the whole time.
    const readers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        expect((await call(archive.url, "GET", `/incidents/${id}`)).status).toBe(200);
        reads += 1;
      }
    });
    try {
      for (let i = 1; i <= 25; i++) {
        const answer = await post(archive.url, id, casualties({ killed: { value: i, qualifier: "exact" } }));
        expect(answer.status).toBe(201);
        const acked = answer.body.version as number;
        const read = await call(archive.url, "GET", `/incidents/${id}`);
        expect(read.body.version).toBeGreaterThanOrEqual(acked);
        expect(read.headers.get("etag")).toBe(`"${read.body.version}"`);
      }
    } finally {
      stop = true;
      await Promise.all(readers);
    }
    expect(reads).toBeGreaterThan(25);
  });

  it("a read after a pass is answered from the view the pass reported, not from the store, until the copy ages out", async () => {
    const id = "cached-from-report";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    const acked = await post(archive.url, id, casualties({ killed: { value: 7, qualifier: "exact" } }));
    const version = acked.body.version as number;
    // The pass's report carries the view it saved: the request thread keeps it, unread.
    await archive.stream.settled(id);
    // The store's view is then changed behind the archive's back (as a writer outside it could).
    const db = createDynamoClient(archive.dynamoEndpoint);
    const stored = await db.send(
      new GetItemCommand({ TableName: archive.tables.views, Key: { incidentId: { S: id } } }),
    );
    const marker = { ...JSON.parse(stored.Item?.summary?.S ?? "{}"), title: "changed in the store" };
    await db.send(
      new UpdateItemCommand({
        TableName: archive.tables.views,
        Key: { incidentId: { S: id } },
        UpdateExpression: "SET summary = :s",
        ExpressionAttributeValues: { ":s": { S: JSON.stringify(marker) } },
      }),
    );
    const read = (await call(archive.url, "GET", `/incidents/${id}`)).body;
    expect(read.version).toBe(version);
    expect(read.title).not.toBe(marker.title);
    // A copy lives a second at most: then the store's view is read again.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.title).toBe(marker.title);
    db.destroy();
  });
});

describe("when the feed thread dies", () => {
  it("the copies are dropped, so the reads it released go to the store", async () => {
    let archive: LocalServer | undefined;
    const deaths: Error[] = [];
    try {
      archive = await startLocalServer({
        port: 0,
        dynamoPort: 0,
        token: "t",
        log: silentLogger,
        onThreadDeath: (error) => deaths.push(error),
      });
      const id = "cached-then-dead";
      const headers = { authorization: "Bearer t", "content-type": "application/json" };
      const posted = await fetch(`${archive.url}/incidents/${id}/events`, {
        method: "POST",
        headers,
        body: JSON.stringify(opened()),
      });
      expect(posted.status).toBe(201);
      const read = async () =>
        (await (await fetch(`${archive?.url}/incidents/${id}`)).json()) as { title: string };
      const title = (await read()).title;
      const db = createDynamoClient(archive.dynamoEndpoint);
      await db.send(
        new UpdateItemCommand({
          TableName: archive.tables.views,
          Key: { incidentId: { S: id } },
          UpdateExpression: "SET summary = :s",
          ExpressionAttributeValues: {
            ":s": { S: JSON.stringify({ ...(await read()), title: "stored after the last report" }) },
          },
        }),
      );
      expect((await read()).title).toBe(title);
      await archive.feedThread.kill();
      await expect.poll(() => deaths.length).toBe(1);
      expect((await read()).title).toBe("stored after the last report");
      db.destroy();
    } finally {
      await archive?.close();
    }
  });
});
