import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseNote } from "../../events/transparency/note.js";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { timestampsOf } from "../../functions/log/timestamp-store.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, casualties, opened, post, TOKEN } from "../support/archive.js";
import { closedPortUrl, type LocalTsa, opensslVerify, startLocalTsa } from "../support/local-tsa.js";
import { runVerify } from "../support/run-verify.js";
import { appendEvents } from "./log-kit.js";

/** The one-a-minute rule, scaled down so the whole archive can be watched keeping it. */
const INTERVAL_MS = 400;

const archiveWith = (tsa: { url: string; timeoutMs?: number }) =>
  startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: silentLogger,
    writer: "test-writer",
    tsa: { ...tsa, minIntervalMs: INTERVAL_MS },
  });

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const bodyOf = (note: string) => parseNote(note).text;

async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  ms = 15_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function checkpointNote(archive: LocalServer): Promise<string> {
  const answer = await call(archive.url, "GET", "/log/checkpoint");
  expect(answer.status).toBe(200);
  return answer.body as string;
}

async function tokenBytes(archive: LocalServer, href: string): Promise<Uint8Array> {
  // Through the document's checks first (status, media type, headers), then as bytes.
  const checked = await call(archive.url, "GET", href);
  expect(checked.status).toBe(200);
  const response = await fetch(`${archive.url}${href}`);
  expect(response.headers.get("content-type")).toBe("application/timestamp-reply");
  return new Uint8Array(await response.arrayBuffer());
}

describe("trusted time: RFC 3161 tokens over checkpoints from a real TSA (openssl ts -reply)", () => {
  let tsa: LocalTsa;
  let archive: LocalServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tsa-test-"));
    tsa = await startLocalTsa();
    archive = await archiveWith({ url: tsa.url });
  });
  afterAll(async () => {
    await archive?.close();
    await tsa?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores a token over each new checkpoint, lists it newest first, and serves the DER response that openssl ts -verify accepts", async () => {
    await appendEvents(archive.url, ["tsa-alpha-2024"], 5);
    await archive.sequencing.idle();
    const first = await until("a token over the first checkpoint", async () => {
      const list = await call(archive.url, "GET", "/log/timestamps");
      expect(list.status).toBe(200);
      return list.body.items[0];
    });
    expect(first).toMatchObject({ tsa: tsa.url, href: `/log/timestamps/${first.treeSize}` });
    expect(first.checkpoint).toMatch(/^test|^localhost/);
    expect(first.checkpoint.split("\n")).toHaveLength(4);
    expect(first.checkpoint.split("\n")[1]).toBe(String(first.treeSize));
    expect(Number.isNaN(Date.parse(first.genTime))).toBe(false);

    const der = await tokenBytes(archive, first.href);
    const accepted = await opensslVerify(tsa, der, sha256Hex(first.checkpoint));
    expect(accepted.output).toContain("Verification: OK");
    expect(accepted.ok).toBe(true);
    // The imprint is of exactly that body: openssl refuses the token for any other bytes.
    const refused = await opensslVerify(tsa, der, sha256Hex(`${first.checkpoint}x`));
    expect(refused.ok).toBe(false);

    // The log grows: a token over the new checkpoint follows, newest first in the list.
    await appendEvents(archive.url, ["tsa-bravo-2024"], 3);
    await archive.sequencing.idle();
    const size = Number(bodyOf(await checkpointNote(archive)).split("\n")[1]);
    const list = await until("a token over the newer checkpoint", async () => {
      const answer = await call(archive.url, "GET", "/log/timestamps");
      return answer.body.items[0]?.treeSize === size ? answer.body.items : null;
    });
    expect(list.length).toBeGreaterThanOrEqual(2);
    expect(list.map((t: { treeSize: number }) => t.treeSize)).toEqual(
      [...list.map((t: { treeSize: number }) => t.treeSize)].sort((a, b) => b - a),
    );
    expect(list[0].checkpoint).toBe(bodyOf(await checkpointNote(archive)));
    expect(list.at(-1).treeSize).toBe(first.treeSize);
  });

  it("keeps requests to the TSA at least the interval apart while the log grows", async () => {
    const start = tsa.arrivals.length;
    for (let i = 0; i < 12; i++) {
      const answer = await post(
        archive.url,
        "tsa-alpha-2024",
        casualties({ killed: { value: i, qualifier: "exact" } }),
      );
      expect(answer.status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await archive.sequencing.idle();
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS + 300));
    // Twelve checkpoints ~100 ms apart: one request per checkpoint would come ~100 ms apart.
    // Requests start the interval apart; their arrival here varies by a store write and a connect.
    const started = tsa.arrivals.slice(start);
    expect(started.length).toBeGreaterThanOrEqual(2);
    expect(started.length).toBeLessThan(8);
    for (let i = 1; i < started.length; i++)
      expect((started[i] ?? 0) - (started[i - 1] ?? 0)).toBeGreaterThanOrEqual(INTERVAL_MS - 100);
    // And the newest checkpoint got its token once the log stopped growing.
    const body = bodyOf(await checkpointNote(archive));
    await until("a token over the last checkpoint", async () => {
      const answer = await call(archive.url, "GET", "/log/timestamps?limit=1");
      return answer.body.items[0]?.checkpoint === body;
    });
  });

  it("pages the list with a cursor, and refuses a bad limit, cursor or tree size", async () => {
    const all = (await call(archive.url, "GET", "/log/timestamps")).body.items as { treeSize: number }[];
    expect(all.length).toBeGreaterThanOrEqual(3);
    const one = await call(archive.url, "GET", "/log/timestamps?limit=1");
    expect(one.body.items.map((t: { treeSize: number }) => t.treeSize)).toEqual([all[0]?.treeSize]);
    expect(one.body.nextCursor).toBe(String(all[0]?.treeSize));
    expect(one.headers.get("link")).toContain(`cursor=${all[0]?.treeSize}`);
    const two = await call(archive.url, "GET", `/log/timestamps?limit=100&cursor=${one.body.nextCursor}`);
    expect(two.body.items.map((t: { treeSize: number }) => t.treeSize)).toEqual(
      all.slice(1).map((t) => t.treeSize),
    );
    expect(two.body.nextCursor).toBeUndefined();

    expect((await call(archive.url, "GET", "/log/timestamps?limit=101")).body.errors[0].path).toBe(
      "query.limit",
    );
    expect((await call(archive.url, "GET", "/log/timestamps?cursor=abc")).body.errors[0].path).toBe(
      "query.cursor",
    );
    expect((await call(archive.url, "GET", "/log/timestamps?foo=1")).status).toBe(400);
    expect((await call(archive.url, "GET", "/log/timestamps/0")).status).toBe(400);
    expect((await call(archive.url, "GET", "/log/timestamps/999999")).status).toBe(404);
  });

  it("timestampFor gives the token over a checkpoint, or over the nearest larger one covering it", async () => {
    const store = timestampsOf(archive.ledger.logStore);
    const list = (await store.page({ limit: 100 })).items;
    const oldest = list.at(-1);
    const newest = list[0];
    if (!oldest || !newest) throw new Error("no tokens");
    expect(Buffer.from((await store.timestampFor(oldest.treeSize)) ?? [])).toEqual(Buffer.from(oldest.token));
    // Tree size 1 is below the first token's checkpoint: that token covers it.
    expect(Buffer.from((await store.timestampFor(1)) ?? [])).toEqual(Buffer.from(oldest.token));
    expect(await store.timestampFor(newest.treeSize + 1)).toBeNull();
  });

  it("npm run verify -- --tsa-ca accepts the tokens, and refuses another CA, a token over another checkpoint and a body not of this log", async () => {
    const vkey = ((await call(archive.url, "GET", "/log/vkey")).body as string).trim();
    const caFile = join(dir, "ca.pem");
    writeFileSync(caFile, tsa.caPem);
    const ok = await runVerify(["--url", archive.url, "--vkey", vkey, "--tsa-ca", caFile, "--quiet"]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/OK [3-9]\d* RFC 3161 tokens verified/);

    const other = await startLocalTsa({ name: "Other" });
    const otherCa = join(dir, "other-ca.pem");
    writeFileSync(otherCa, other.caPem);
    await other.close();
    const foreign = await runVerify(["--url", archive.url, "--vkey", vkey, "--tsa-ca", otherCa, "--quiet"]);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/^FAIL: the token over tree size \d+: the token does not verify/);

    // The table is edited: the newest entry's token is swapped for an older checkpoint's.
    const store = timestampsOf(archive.ledger.logStore);
    const [newest, , older] = (await store.page({ limit: 3 })).items;
    if (!newest || !older) throw new Error("too few tokens");
    const db = createDynamoClient(archive.dynamoEndpoint);
    const overwrite = (item: { token: Uint8Array; checkpoint: string }) =>
      db.send(
        new PutItemCommand({
          TableName: archive.tables.log,
          Item: {
            pk: { S: "timestamp" },
            sk: { N: String(newest.treeSize) },
            checkpoint: { S: item.checkpoint },
            genTime: { S: newest.genTime },
            tsa: { S: newest.tsa },
            token: { B: item.token },
          },
        }),
      );
    try {
      await overwrite({ token: older.token, checkpoint: newest.checkpoint });
      const swapped = await runVerify(["--url", archive.url, "--vkey", vkey, "--tsa-ca", caFile, "--quiet"]);
      expect(swapped.code).toBe(1);
      expect(swapped.stderr).toContain(`FAIL: the token over tree size ${newest.treeSize}:`);
      expect(swapped.stderr).toContain("TSTInfo verification is failed");

      // A body with another root at that size, over which a real token was obtained: not this log's tree.
      const [origin, size] = newest.checkpoint.split("\n");
      const forged = `${origin}\n${size}\n${Buffer.alloc(32, 7).toString("base64")}\n`;
      const { TimestampAuthority } = await import("../../functions/log/timestamp-authority.js");
      const stamp = await new TimestampAuthority(tsa.url).stamp(forged);
      await overwrite({ token: stamp.token, checkpoint: forged });
      const inconsistent = await runVerify([
        "--url",
        archive.url,
        "--vkey",
        vkey,
        "--tsa-ca",
        caFile,
        "--quiet",
      ]);
      expect(inconsistent.code).toBe(1);
      expect(inconsistent.stderr).toMatch(/its checkpoint('s root)? is not/);

      // A token over a tree larger than the log now has (the log cut back after it was stamped).
      const beyond = newest.treeSize + 50;
      const cutBack = `${origin}\n${beyond}\n${Buffer.alloc(32, 9).toString("base64")}\n`;
      const beyondStamp = await new TimestampAuthority(tsa.url).stamp(cutBack);
      const beyondKey = { pk: { S: "timestamp" }, sk: { N: String(beyond) } };
      await db.send(
        new PutItemCommand({
          TableName: archive.tables.log,
          Item: {
            ...beyondKey,
            checkpoint: { S: cutBack },
            genTime: { S: newest.genTime },
            tsa: { S: newest.tsa },
            token: { B: beyondStamp.token },
          },
        }),
      );
      try {
        const shrank = await runVerify(["--url", archive.url, "--vkey", vkey, "--tsa-ca", caFile, "--quiet"]);
        expect(shrank.code).toBe(1);
        expect(shrank.stderr).toContain(
          `FAIL: the token over tree size ${beyond}: the log's checkpoint is now of size`,
        );
        expect(shrank.stderr).toContain("smaller than the tree this token vouches for: the log shrank");
      } finally {
        await db.send(new DeleteItemCommand({ TableName: archive.tables.log, Key: beyondKey }));
      }
    } finally {
      await overwrite({ token: newest.token, checkpoint: newest.checkpoint });
      db.destroy();
    }
    const again = await runVerify(["--url", archive.url, "--vkey", vkey, "--tsa-ca", caFile, "--quiet"]);
    expect(again.code).toBe(0);
  });
});

describe("trusted time: a TSA that is down or slow delays tokens, never an append or a checkpoint", () => {
  const appendsAndCheckpoints = async (archive: LocalServer, incident: string) => {
    const opening = await post(archive.url, incident, opened());
    expect(opening.status).toBe(201);
    await archive.sequencing.idle();
    const before = Number(bodyOf(await checkpointNote(archive)).split("\n")[1]);
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const answer = await post(
        archive.url,
        incident,
        casualties({ killed: { value: i, qualifier: "exact" } }),
      );
      expect(answer.status).toBe(201);
    }
    await archive.sequencing.idle();
    const after = Number(bodyOf(await checkpointNote(archive)).split("\n")[1]);
    expect(after).toBe(before + 5);
    return Date.now() - started;
  };

  it("down (a closed port): appends still 201, the checkpoint still advances, no token is listed", async () => {
    const archive = await archiveWith({ url: await closedPortUrl() });
    try {
      const took = await appendsAndCheckpoints(archive, "tsa-down-2024");
      expect(took).toBeLessThan(5_000);
      expect((await call(archive.url, "GET", "/log/timestamps")).body).toEqual({ items: [] });
      // Asked to check trusted time where no token is served: a failure, not "0 tokens verified".
      const vkey = ((await call(archive.url, "GET", "/log/vkey")).body as string).trim();
      const caFile = join(mkdtempSync(join(tmpdir(), "tsa-none-")), "ca.pem");
      const ca = await startLocalTsa();
      writeFileSync(caFile, ca.caPem);
      await ca.close();
      const none = await runVerify(["--url", archive.url, "--vkey", vkey, "--tsa-ca", caFile, "--quiet"]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("the log serves no RFC 3161 time-stamp token");
    } finally {
      await archive.close();
    }
  });

  it("slow (answers never): appends and checkpoints go on, the request is retried after its timeout, and the archive still closes", async () => {
    const tsa = await startLocalTsa({ mode: "silent" });
    const archive = await archiveWith({ url: tsa.url, timeoutMs: 300 });
    try {
      const took = await appendsAndCheckpoints(archive, "tsa-slow-2024");
      expect(took).toBeLessThan(5_000);
      // Asked, timed out, asked again: the wait is for the token only.
      await until("a second request after the first timed out", async () => tsa.queries.length >= 2);
      expect((await call(archive.url, "GET", "/log/timestamps")).body).toEqual({ items: [] });
      // Once it answers again, the token comes.
      tsa.mode = "normal";
      const body = bodyOf(await checkpointNote(archive));
      await until("a token once the TSA answers", async () => {
        const answer = await call(archive.url, "GET", "/log/timestamps?limit=1");
        return answer.body.items[0]?.checkpoint === body;
      });
    } finally {
      const closing = Date.now();
      await archive.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
      await tsa.close();
    }
  });
});
