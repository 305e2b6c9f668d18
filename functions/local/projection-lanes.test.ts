import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../log.js";
import type { Item } from "../store/commit-item.js";
import { ProjectionLanes } from "./projection-lanes.js";

const commit = (incidentId: string, version: number): Item =>
  ({ incidentId: { S: incidentId }, version: { N: String(version) } }) as Item;

/** A stream handler that notes every call, and holds the calls of one incident until released. */
function recordingHandler(hold?: string) {
  const calls: { incidentId: string; versions: number[] }[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const incidentId = event.Records[0]?.dynamodb?.Keys?.incidentId?.S ?? "";
    calls.push({ incidentId, versions: event.Records.map((r) => Number(r.dynamodb?.Keys?.version?.N)) });
    if (incidentId === hold) await held;
    return { batchItemFailures: [] };
  };
  return { handler, calls, release: () => release() };
}

describe("projection lanes (the local stream, one lane per incident)", () => {
  it("given a pass running for an incident, when more commits arrive, then they become one follow-up pass", async () => {
    const { handler, calls, release } = recordingHandler("busy");
    const lanes = new ProjectionLanes({ handler, log: silentLogger, tableName: "events" });
    lanes.publish(commit("busy", 1));
    await expect.poll(() => calls.length).toBe(1);
    for (let v = 2; v <= 6; v++) lanes.publish(commit("busy", v));
    release();
    await lanes.idle();
    expect(calls).toEqual([
      { incidentId: "busy", versions: [1] },
      { incidentId: "busy", versions: [2, 3, 4, 5, 6] },
    ]);
  });

  it("given one incident's pass is slow, when another incident is written to, then its reads need not wait", async () => {
    const { handler, calls, release } = recordingHandler("slow");
    const lanes = new ProjectionLanes({ handler, log: silentLogger, tableName: "events" });
    lanes.publish(commit("slow", 1));
    await expect.poll(() => calls.length).toBe(1);
    lanes.publish(commit("quick", 1));
    await lanes.settled("quick");
    expect(calls.map((c) => c.incidentId).sort()).toEqual(["quick", "slow"]);
    release();
    await lanes.settled("slow");
  });

  it("given a record that keeps failing, then it is retried, parked, and its incident reported idle", async () => {
    const progress: [string, number, boolean][] = [];
    let attempts = 0;
    const lanes = new ProjectionLanes({
      handler: async (event) => {
        attempts += 1;
        return {
          batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.dynamodb?.SequenceNumber ?? "" })),
        };
      },
      log: silentLogger,
      tableName: "events",
      onProgress: (incidentId, handled, idle) => progress.push([incidentId, handled, idle]),
    });
    lanes.publish(commit("poison", 1));
    await lanes.settled("poison");
    expect(attempts).toBe(5);
    expect(progress.at(-1)).toEqual(["poison", 1, true]);
  });
});

describe("projection lanes' batching window", () => {
  it("given commits of one incident within its window, then they are projected in one pass", async () => {
    const { handler, calls } = recordingHandler();
    const lanes = new ProjectionLanes({
      handler,
      log: silentLogger,
      tableName: "events",
      batchingWindowMs: 50,
    });
    for (let v = 1; v <= 4; v++) lanes.publish(commit("hot", v));
    await lanes.idle();
    expect(calls).toEqual([{ incidentId: "hot", versions: [1, 2, 3, 4] }]);
  });

  it("given a long window, when a read waits for the incident, then its pass starts at once (and idle cuts every window)", async () => {
    const { handler, calls } = recordingHandler();
    const lanes = new ProjectionLanes({
      handler,
      log: silentLogger,
      tableName: "events",
      batchingWindowMs: 600_000,
    });
    lanes.publish(commit("read", 1));
    lanes.publish(commit("other", 1));
    await lanes.settled("read");
    expect(calls).toEqual([{ incidentId: "read", versions: [1] }]);
    await lanes.idle();
    expect(calls.map((c) => c.incidentId)).toEqual(["read", "other"]);
  });

  it("given an incident waiting out its window, then it holds no lane: another incident is projected with the only slot", async () => {
    const { handler, calls } = recordingHandler();
    const lanes = new ProjectionLanes({
      handler,
      log: silentLogger,
      tableName: "events",
      batchingWindowMs: 600_000,
      concurrency: 1,
    });
    lanes.publish(commit("waiting", 1));
    lanes.publish(commit("wanted", 1));
    await lanes.settled("wanted");
    expect(calls.map((c) => c.incidentId)).toEqual(["wanted"]);
    await lanes.idle();
  });

  it("given a read waits while a pass runs, then what arrived meanwhile is projected without a window", async () => {
    const { handler, calls, release } = recordingHandler("busy");
    const lanes = new ProjectionLanes({
      handler,
      log: silentLogger,
      tableName: "events",
      batchingWindowMs: 600_000,
    });
    lanes.publish(commit("busy", 1));
    lanes.hurry("busy");
    await expect.poll(() => calls.length).toBe(1);
    lanes.publish(commit("busy", 2));
    lanes.hurry("busy");
    release();
    await lanes.settled("busy");
    expect(calls.map((c) => c.versions)).toEqual([[1], [2]]);
  });
});

describe("projection lanes under a backlog", () => {
  it("given incidents queued for a slot, when a read waits for a later one, then it is projected before the others", async () => {
    const { handler, calls, release } = recordingHandler("busy");
    const lanes = new ProjectionLanes({
      handler,
      log: silentLogger,
      tableName: "events",
      batchingWindowMs: 0,
      concurrency: 1,
    });
    lanes.publish(commit("busy", 1));
    await expect.poll(() => calls.length).toBe(1);
    for (const id of ["first", "second", "read"]) lanes.publish(commit(id, 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const read = lanes.settled("read");
    release();
    await read;
    expect(calls.map((c) => c.incidentId).slice(0, 2)).toEqual(["busy", "read"]);
    await lanes.idle();
    expect(calls.map((c) => c.incidentId)).toEqual(["busy", "read", "first", "second"]);
  });
});
