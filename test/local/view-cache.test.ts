import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { ViewCache } from "../../functions/local/view-cache.js";
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
    for (let i = 1; i <= 25; i++) {
      const answer = await post(archive.url, id, casualties({ killed: { value: i, qualifier: "exact" } }));
      expect(answer.status).toBe(201);
      const acked = answer.body.version as number;
      const read = await call(archive.url, "GET", `/incidents/${id}`);
      expect(read.body.version).toBeGreaterThanOrEqual(acked);
      expect(read.headers.get("etag")).toBe(`"${read.body.version}"`);
    }
    stop = true;
    await Promise.all(readers);
    expect(reads).toBeGreaterThan(25);
  });
});
