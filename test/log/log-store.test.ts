import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { type LeafRecord, LogStore } from "../../functions/log/log-store.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";
import { freshLogTable } from "./log-kit.js";

const leaf = (index: number): LeafRecord => ({
  index,
  incidentId: `incident-${index % 3}`,
  version: Math.floor(index / 3) + 1,
  eventId: `ev-${index}`,
  hash: index.toString(16).padStart(64, "0"),
  commit: Math.floor(index / 3) + 1,
});
const run = (start: number, count: number) => ({
  start,
  leaves: Array.from({ length: count }, (_, i) => leaf(start + i)),
});

let archive: LocalServer;
let store: LogStore;
beforeAll(async () => {
  archive = await startArchive();
  // A log table of its own: the archive's log already holds its first (empty) checkpoint.
  store = new LogStore(createDynamoClient(archive.dynamoEndpoint), await freshLogTable(archive));
});
afterAll(() => archive.close());

describe("LogStore", () => {
  it("reads any range of leaves across runs, in order", async () => {
    expect(await store.putRun(run(0, 100))).toBe(true);
    expect(await store.putRun(run(100, 156))).toBe(true);
    expect(await store.putRun(run(256, 10))).toBe(true);
    const read = async (from: number, to: number) => {
      const out: number[] = [];
      for await (const l of store.leaves(from, to)) out.push(l.index);
      return out;
    };
    expect(await read(0, 266)).toEqual(Array.from({ length: 266 }, (_, i) => i));
    expect(await read(99, 102)).toEqual([99, 100, 101]);
    expect(await read(260, 1000)).toEqual([260, 261, 262, 263, 264, 265]);
    expect(await read(5, 5)).toEqual([]);
    const first = await store.leaves(42, 43).next();
    expect(first.value).toEqual(leaf(42));
  });

  it("refuses a second run at a taken slot and a run across a tile boundary", async () => {
    expect(await store.putRun(run(266, 5))).toBe(true);
    expect(await store.putRun(run(266, 7))).toBe(false);
    await expect(store.putRun(run(500, 20))).rejects.toThrow(RangeError);
    expect((await store.lastRun())?.start).toBe(266);
  });

  it("keeps the checkpoint with the largest size as the latest, and one per size", async () => {
    expect(await store.latestCheckpoint()).toBeNull();
    await store.putCheckpoint({ size: 5, root: "cm9vdDU=", text: "five" });
    await store.putCheckpoint({ size: 9, root: "cm9vdDk=", text: "nine" });
    const again = await store.putCheckpoint({ size: 5, root: "b3RoZXI=", text: "other" });
    expect(again.text).toBe("five");
    expect(await store.latestCheckpoint()).toEqual({ size: 9, root: "cm9vdDk=", text: "nine" });
  });

  it("finds an incident's versions by their sequenced records, one conditional put a record; a repeat changes nothing", async () => {
    const records = new LogStore(createDynamoClient(archive.dynamoEndpoint), await freshLogTable(archive));
    expect(await records.sequencedUpTo("kyiv-2022")).toBe(0);
    // More than one batch's worth: 30 incidents' records from one run, then the incident's own two.
    const many = Array.from({ length: 30 }, (_, k) => ({
      incidentId: `run-${k}`,
      first: 1,
      indexes: [100 + k],
    }));
    const kyiv = [
      { incidentId: "kyiv-2022", first: 1, indexes: [4, 7] },
      { incidentId: "kyiv-2022", first: 3, indexes: [12] },
    ];
    await records.putSequenced([...many, ...kyiv]);
    await records.putSequenced(kyiv);
    expect(await records.sequencedUpTo("kyiv-2022")).toBe(3);
    expect(await records.indexOf("kyiv-2022", 2)).toBe(7);
    expect(await records.indexOf("kyiv-2022", 3)).toBe(12);
    expect(await records.indexOf("kyiv-2022", 4)).toBeNull();
    expect(await records.indexOf("run-29", 1)).toBe(129);
  });
});
