import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReleaseNameTakenError } from "../../functions/export/export-errors.js";
import { RELEASE_PK, type Release, ReleaseStore } from "../../functions/export/release-store.js";
import type { LocalServer } from "../../functions/local/server.js";
import { call, startArchive } from "../support/archive.js";
import { type CallInfo, type Fault, faultyClient, InjectedCrashError } from "../support/faulty-client.js";

/**
 * Reading releases costs the same whatever their number: a name is one GetItem, the list is
 * paged (one Query a page). Releases here are made through the store itself (the route's own
 * checks are in releases.test.ts), 120 of them so that the list spans pages.
 */
let archive: LocalServer;
let base: string;
let calls: CallInfo[] = [];
let fault: (call: CallInfo) => Fault = () => "none";
let store: ReleaseStore;
const RELEASES = 120;

const fields = (name: string): Omit<Release, "number"> => ({
  name,
  note: `note of ${name}`,
  treeSize: 3,
  root: "cm9vdA==",
  checkpoint: "localhost/incident-ledger\n3\ncm9vdA==\n",
  createdAt: "2026-11-30T12:00:00.000Z",
  createdBy: "test-writer",
});

beforeAll(async () => {
  archive = await startArchive();
  base = archive.url;
  const db = faultyClient(archive.dynamoEndpoint, (c) => {
    calls.push(c);
    return fault(c);
  });
  store = new ReleaseStore(db, archive.tables.log as string);
  for (let i = 1; i <= RELEASES; i++) await store.create(fields(`r-${String(i).padStart(3, "0")}`));
}, 120_000);
afterAll(() => archive?.close());

async function everyPage(limit?: number) {
  const pages: { items: Release[]; nextCursor?: string }[] = [];
  let cursor: string | undefined;
  do {
    const query = [limit ? `limit=${limit}` : "", cursor ? `cursor=${cursor}` : ""].filter(Boolean).join("&");
    const page = await call(base, "GET", `/releases${query ? `?${query}` : ""}`);
    expect(page.status).toBe(200);
    if (page.body.nextCursor) {
      expect(page.headers.get("link")).toBe(
        `<${base.replace("127.0.0.1", "localhost")}/releases?${limit ? `limit=${limit}&` : ""}cursor=${page.body.nextCursor}>; rel="next"`,
      );
    } else {
      expect(page.body).not.toHaveProperty("nextCursor");
      expect(page.headers.get("link")).toBeNull();
    }
    pages.push(page.body);
    cursor = page.body.nextCursor;
  } while (cursor);
  return pages;
}

describe("release reads", () => {
  it("reads a release by name with one GetItem and nothing else", async () => {
    calls = [];
    const release = await store.byName("r-057");
    expect(release).toMatchObject({ number: 57, name: "r-057", note: "note of r-057" });
    expect(calls.map((c) => c.command)).toEqual(["GetItemCommand"]);
    calls = [];
    expect(await store.byName("r-999")).toBeNull();
    expect(calls.map((c) => c.command)).toEqual(["GetItemCommand"]);
    const served = await call(base, "GET", "/releases/r-057");
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ number: 57, citation: expect.stringContaining("release r-057,") });
  });

  it("lists releases a page at a time, oldest first, the pages together being every release once", async () => {
    const pages = await everyPage();
    expect(pages.map((p) => p.items.length)).toEqual([100, 20]);
    expect(pages[0]?.nextCursor).toBe("100");
    const numbers = pages.flatMap((p) => p.items.map((r) => r.number));
    expect(numbers).toEqual(Array.from({ length: RELEASES }, (_, i) => i + 1));
    const small = await everyPage(7);
    expect(small).toHaveLength(Math.ceil(RELEASES / 7));
    expect(small.flatMap((p) => p.items)).toEqual(pages.flatMap((p) => p.items));
    // Each page is one Query of the store, whatever the number of releases.
    calls = [];
    const page = await store.page(50, 10);
    expect(page.items.map((r) => r.number)).toEqual([51, 52, 53, 54, 55, 56, 57, 58, 59, 60]);
    expect(page.after).toBe(60);
    expect(calls.map((c) => c.command)).toEqual(["QueryCommand"]);
  });

  it("refuses a limit or cursor it did not give out, naming the parameter", async () => {
    for (const [query, path] of [
      ["limit=0", "query.limit"],
      ["limit=101", "query.limit"],
      ["limit=ten", "query.limit"],
      ["cursor=abc", "query.cursor"],
      ["cursor=0", "query.cursor"],
      ["after=3", "query.after"],
    ]) {
      const answer = await call(base, "GET", `/releases?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.headers.get("content-type")).toBe("application/problem+json");
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    }
  });

  it("heals a name left without its item by a crash after the numbered put: the retry answers 409 and the name reads again", async () => {
    fault = (c) =>
      c.command === "PutItemCommand" && calls.filter((x) => x.command === "PutItemCommand").length === 1
        ? "crash-after"
        : "none";
    calls = [];
    await expect(store.create(fields("crashed"))).rejects.toBeInstanceOf(InjectedCrashError);
    fault = () => "none";
    expect((await store.list()).at(-1)?.name).toBe("crashed");
    expect(await store.byName("crashed")).toBeNull();
    await expect(store.create(fields("crashed"))).rejects.toBeInstanceOf(ReleaseNameTakenError);
    expect(await store.byName("crashed")).toMatchObject({ number: RELEASES + 1, name: "crashed" });
  });

  it("gives releases stored before names had items their items on the next create", async () => {
    const db = faultyClient(archive.dynamoEndpoint, () => "none");
    const legacy = { number: RELEASES + 2, ...fields("legacy") };
    // How releases were stored before: the numbered item only.
    await db.send(
      new PutItemCommand({
        TableName: archive.tables.log,
        Item: {
          pk: { S: RELEASE_PK },
          sk: { N: String(legacy.number) },
          name: { S: legacy.name },
          treeSize: { N: String(legacy.treeSize) },
          release: { S: JSON.stringify(legacy) },
        },
      }),
    );
    db.destroy();
    expect(await store.byName("legacy")).toBeNull();
    await store.create(fields("after-legacy"));
    expect(await store.byName("legacy")).toEqual(legacy);
    expect(await store.byName("after-legacy")).toMatchObject({ number: RELEASES + 3 });
  });
});
