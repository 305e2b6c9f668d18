import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCheckpoint } from "../../events/transparency/checkpoint.js";
import { verifyNote } from "../../events/transparency/note.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore } from "../../functions/log/log-store.js";
import { LogTiles } from "../../functions/log/log-tiles.js";
import { Sequencer } from "../../functions/log/sequencer.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { casualties, opened, post, startArchive } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";
import {
  allLeaves,
  appendEvents,
  CrashError,
  checkLogAgainstEvents,
  crashingClient,
  eventsFromApi,
  freshLogTable,
  testSigner,
  writerOn,
} from "./log-kit.js";

const INCIDENTS = ["seq-alpha-2024", "seq-bravo-2024", "seq-charlie-2024"];

let archive: LocalServer;
let stored: number;
beforeAll(async () => {
  archive = await startArchive();
  // 300 events: one full tile (and entry bundle) and a partial one.
  stored = await appendEvents(archive.url, INCIDENTS, 100);
});
afterAll(() => archive.close());

describe("the sequencer", () => {
  it("puts every stored event in the log once, in version order, and signs a checkpoint of it", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const signer = testSigner();
    const writer = writerOn(archive, db, await freshLogTable(archive), signer);
    const result = await writer.pass();
    expect(result.size).toBe(stored);
    const leaves = await allLeaves(writer.store);
    const { problems, root } = checkLogAgainstEvents(leaves, await eventsFromApi(archive.url, INCIDENTS));
    expect(problems).toEqual([]);
    const note = verifyNote(result.checkpoint.text, [signer.vkey]);
    const body = parseCheckpoint(note.text);
    expect(body.size).toBe(stored);
    expect(Buffer.from(body.root).toString("base64")).toBe(Buffer.from(root).toString("base64"));
    // A second pass finds nothing to do.
    expect((await writer.pass()).added).toBe(0);
    db.destroy();
  });

  it("over the whole archive, when the log holds every stored event, reads no incident's records or commits", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const signer = testSigner();
    const table = await freshLogTable(archive);
    const first = await writerOn(archive, db, table, signer).pass();
    // A new process (a restart), its store calls counted.
    const { db: counted, sent } = countedClient(archive.dynamoEndpoint);
    const restarted = createLogWriter({
      store: new LogStore(counted, table),
      events: new EventStore({ db: counted, tables: archive.tables }),
      signer,
      log: silentLogger,
    });
    const again = await restarted.pass();
    expect(again).toMatchObject({ size: first.size, added: 0 });
    expect(again.checkpoint.size).toBe(first.size);
    // The events table is scanned for its heads; no incident's commits are queried…
    const onEvents = sent.filter((c) => c.table === archive.tables.events).map((c) => c.command);
    expect(new Set(onEvents)).toEqual(new Set(["ScanCommand"]));
    // …and of the log, the runs past the settled size and the latest checkpoint are, not each
    // incident's records (the archive holds more incidents than that).
    expect(sent.filter((c) => c.table === table && c.command === "QueryCommand")).toHaveLength(2);
    expect((await archive.ledger.events.incidentVersions()).size).toBeGreaterThan(2);
    // An event stored and not in the log (another incident than the other tests count) is
    // caught up by the same kind of pass.
    expect((await post(archive.url, "seq-restart-2024", opened())).status).toBe(201);
    expect((await restarted.pass()).added).toBe(1);
    counted.destroy();
    db.destroy();
  });

  it("records the settled size when a tile fills or a burst ends, not every pass; a sequencer starting from a lagging one settles again to the same log", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const table = await freshLogTable(archive);
    const writer = writerOn(archive, db, table);
    // The first pass crosses the first tile (300 leaves): recorded at once.
    await writer.sequencer.sequence(INCIDENTS);
    expect(await writer.store.settledSize()).toBe(stored);
    // Passes within a tile leave it to the end of the burst.
    const extra = "seq-settling-2024";
    for (const event of [
      opened(),
      casualties({ killed: { value: 4, qualifier: "exact" } }),
      casualties({ injured: { value: 9, qualifier: "exact" } }),
    ]) {
      expect((await post(archive.url, extra, event)).status).toBe(201);
      await writer.sequencer.sequence([extra]);
    }
    expect(await writer.store.settledSize()).toBe(stored);
    // Another sequencer (a restart) starts from the stored size: it settles those runs again
    // (their records rewritten, the same bytes) and finds nothing left to add.
    const restarted = writerOn(archive, db, table);
    expect((await restarted.pass([...INCIDENTS, extra])).added).toBe(0);
    expect(await restarted.store.settledSize()).toBe(stored + 3);
    expect(await restarted.store.sequencedUpTo(extra)).toBe(3);
    const leaves = await allLeaves(restarted.store);
    expect(leaves).toHaveLength(stored + 3);
    expect(
      checkLogAgainstEvents(leaves, await eventsFromApi(archive.url, [...INCIDENTS, extra])).problems,
    ).toEqual([]);
    // The first one's flush (the burst's end) is then a no-op write of an older size.
    await writer.sequencer.flushSettledSize();
    expect(await writer.store.settledSize()).toBe(stored + 3);
    db.destroy();
  });

  it("killed at any write, before or after the store acts, and run again, yields the same log", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const signer = testSigner();
    const reference = writerOn(archive, db, await freshLogTable(archive), signer);
    await reference.pass();
    const expected = await allLeaves(reference.store);
    const expectedCheckpoint = await reference.store.latestCheckpoint();

    // How many calls an undisturbed pass makes: every one of them is a place to die.
    const counting = crashingClient(db, Number.MAX_SAFE_INTEGER, "before");
    await writerOn(archive, counting.client, await freshLogTable(archive), signer).pass();
    const steps = counting.calls();
    expect(steps).toBeGreaterThan(10);
    // What survives a crash is which writes were done: dying before a read leaves what dying
    // before the next write does. So the process dies before each write (it never happens) and
    // after each (it happened, its answer was lost) — every state a crash can leave.
    const points = counting.writes().flatMap((at) => [
      { at, when: "before" as const },
      { at, when: "after" as const },
    ]);
    expect(points.length).toBeGreaterThan(12);

    const crashes: string[] = [];
    const crashAndRestart = async ({ at, when }: (typeof points)[number]) => {
      const table = await freshLogTable(archive);
      const faulty = crashingClient(db, at, when);
      await expect(writerOn(archive, faulty.client, table, signer).pass()).rejects.toThrow(CrashError);
      crashes.push(`${when} ${at}`);
      // A new process, same table and key.
      const restarted = writerOn(archive, db, table, signer);
      await restarted.pass();
      const leaves = await allLeaves(restarted.store);
      expect(leaves, `crash ${when} call ${at}`).toEqual(expected);
      expect(await restarted.store.settledSize()).toBe(expected.length);
      const checkpoint = await restarted.store.latestCheckpoint();
      expect(checkpoint?.size).toBe(expectedCheckpoint?.size);
      expect(checkpoint?.root).toBe(expectedCheckpoint?.root);
      // Tiles stored by the restarted run serve the same bytes as the undisturbed run's.
      expect(await restarted.tiles.hashTile(0, 0, 256)).toEqual(await reference.tiles.hashTile(0, 0, 256));
      expect(await restarted.store.fullEntryBundle(0)).toEqual(await reference.store.fullEntryBundle(0));
    };
    // A few at a time, each on its own table: they share nothing but the events they read.
    for (let i = 0; i < points.length; i += 4) await Promise.all(points.slice(i, i + 4).map(crashAndRestart));
    expect(crashes.length).toBe(points.length);
    db.destroy();
    // Dozens of sequencer runs: slow on a busy machine, whatever their speed (no timing asserted).
  }, 240_000);

  it("two sequencers at once, while writers append, make one log with every event once", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const table = await freshLogTable(archive);
    const signer = testSigner();
    const a = writerOn(archive, db, table, signer);
    const b = writerOn(archive, db, table, signer);
    const more = ["seq-delta-2024", "seq-echo-2024", "seq-foxtrot-2024", "seq-golf-2024"];
    let appending = true;
    const racing = async (w: typeof a) => {
      while (appending) {
        await w.pass([...INCIDENTS, ...more]);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    const runs = [racing(a), racing(b)];
    await appendEvents(archive.url, more, 60);
    appending = false;
    await Promise.all(runs);
    await a.pass([...INCIDENTS, ...more]);
    const leaves = await allLeaves(a.store);
    const { problems, root } = checkLogAgainstEvents(
      leaves,
      await eventsFromApi(archive.url, [...INCIDENTS, ...more]),
    );
    expect(problems).toEqual([]);
    const checkpoint = await a.store.latestCheckpoint();
    expect(checkpoint?.size).toBe(leaves.length);
    expect(checkpoint?.root).toBe(Buffer.from(root).toString("base64"));
    db.destroy();
  });

  it("refuses to sign a tree that does not extend the last checkpoint (a stored leaf was edited)", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const table = await freshLogTable(archive);
    const signer = testSigner();
    const writer = writerOn(archive, db, table, signer);
    const first = await writer.pass();
    // Edit one leaf of the last run (past the last full tile), as someone with table access could.
    const last = await writer.store.lastRun();
    expect((last?.start ?? 0) % 256).toBeLessThan(255);
    const key = { pk: { S: "leaves" }, sk: { N: String(last?.start) } };
    const run = (await db.send(new GetItemCommand({ TableName: table, Key: key }))).Item ?? {};
    const leaves = run.leaves?.L ?? [];
    const edited = JSON.parse(leaves[0]?.S ?? "{}");
    edited.hash = "0".repeat(64);
    leaves[0] = { S: JSON.stringify(edited) };
    await db.send(new PutItemCommand({ TableName: table, Item: run }));
    await post(archive.url, INCIDENTS[0] as string, casualties({ killed: { value: 1, qualifier: "exact" } }));
    // A sequencer that reads the edited leaf (a new process: this one keeps the tile it verified)
    // refuses to sign.
    const restarted = writerOn(archive, db, table, signer);
    await expect(restarted.pass()).rejects.toThrow(/does not extend the signed checkpoint/);
    expect(await writer.store.latestCheckpoint()).toEqual(first.checkpoint);
    db.destroy();
  });

  it("keeps what it knows of a bounded number of incidents between passes, and reads the others' from the log", async () => {
    const ids = ["seq-kept-a-2024", "seq-kept-b-2024", "seq-kept-c-2024"];
    await appendEvents(archive.url, ids, 5);
    const table = await freshLogTable(archive);
    const { db: counted, sent } = countedClient(archive.dynamoEndpoint);
    const sequencerOn = (logTable: string, rememberedIncidents: number) => {
      const store = new LogStore(counted, logTable);
      return new Sequencer({
        store,
        tiles: new LogTiles(store),
        events: archive.ledger.events,
        log: silentLogger,
        rememberedIncidents,
      });
    };
    const recordReads = (logTable: string) =>
      sent.filter((c) => c.table === logTable && c.command === "QueryCommand").length;

    // Given a sequencer that remembers two incidents, and one (on another log) that remembers all three,
    const other = await freshLogTable(archive);
    const forgetful = sequencerOn(table, 2);
    const roomy = sequencerOn(other, 3);
    expect((await forgetful.sequence(ids)).added).toBe(15);
    expect((await roomy.sequence(ids)).added).toBe(15);
    // when each incident gains an event and both pass again,
    for (const id of ids) {
      const injured = casualties({ injured: { value: 2, qualifier: "exact" } });
      expect((await post(archive.url, id, injured)).status).toBe(201);
    }
    const [forgetfulBefore, roomyBefore] = [recordReads(table), recordReads(other)];
    expect((await forgetful.sequence(ids)).added).toBe(3);
    expect((await roomy.sequence(ids)).added).toBe(3);
    // then the forgetful one reads the records of the one incident it let go, and only that one,
    // where the other reads none,
    expect(recordReads(table) - forgetfulBefore).toBe(1);
    expect(recordReads(other) - roomyBefore).toBe(0);
    // and its log holds every event once, in order, as the other's does.
    const leaves = await allLeaves(new LogStore(counted, table));
    expect(leaves).toHaveLength(18);
    expect(checkLogAgainstEvents(leaves, await eventsFromApi(archive.url, ids)).problems).toEqual([]);
    counted.destroy();
  });
});
