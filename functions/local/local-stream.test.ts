import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logger.js";
import type { Item } from "../store/commit-item.js";
import { LocalStream } from "./local-stream.js";

const commit = (incidentId: string, version: number): Item => ({
  incidentId: { S: incidentId },
  version: { N: String(version) },
});
const keyOf = (record: DynamoDBStreamEvent["Records"][number]) =>
  `${record.dynamodb?.Keys?.incidentId?.S}@${record.dynamodb?.Keys?.version?.N}`;

/** A handler that records what it was handed and fails the records `fails` names, once each. */
function recordingHandler(fails: Set<string>, gate?: Promise<void>) {
  const seen: string[] = [];
  const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    await gate;
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const key = keyOf(record);
      seen.push(key);
      if (fails.delete(key))
        batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? "" });
    }
    return { batchItemFailures };
  };
  return { seen, handler };
}

describe("the local stand-in for DynamoDB Streams", () => {
  it("given a record that fails once, delivers it again before any later record of its incident", async () => {
    const { seen, handler } = recordingHandler(new Set(["a@2"]));
    const stream = new LocalStream(handler, silentLogger, "events");
    for (const [id, v] of [
      ["a", 1],
      ["a", 2],
      ["b", 1],
      ["a", 3],
      ["b", 2],
    ] as const)
      stream.publish(commit(id, v));
    await stream.idle();
    // Every record handled at least once; each incident's handled order is its commit order.
    const handledA = seen.filter((k) => k.startsWith("a@"));
    expect(handledA).toEqual(["a@1", "a@2", "a@3", "a@2", "a@3"]);
    const lastOf = (key: string) => seen.lastIndexOf(key);
    expect(lastOf("a@2")).toBeLessThan(lastOf("a@3"));
    expect(seen.filter((k) => k.startsWith("b@"))).toEqual(["b@1", "b@2"]);
  });

  it("given a record that always fails, parks it after its attempts and goes idle", async () => {
    const always = { add: () => always, delete: () => true } as unknown as Set<string>;
    const { seen, handler } = recordingHandler(always);
    const stream = new LocalStream(handler, silentLogger, "events");
    stream.publish(commit("c", 1));
    await stream.idle();
    expect(seen).toEqual(["c@1", "c@1", "c@1", "c@1", "c@1"]);
  });

  it("given a read waiting for an incident, never makes it wait for records published after it", async () => {
    const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
    const gate = (key: string) => {
      let open: () => void = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      gates.set(key, { open, opened });
    };
    gate("d@1");
    gate("d@2");
    const entered: string[] = [];
    const stream = new LocalStream(
      async (event) => {
        for (const record of event.Records) {
          entered.push(keyOf(record));
          await gates.get(keyOf(record))?.opened;
        }
        return { batchItemFailures: [] };
      },
      silentLogger,
      "events",
    );
    stream.publish(commit("d", 1));
    let read = false;
    const reading = stream.projected("d").then(() => {
      read = true;
    });
    await expect.poll(() => entered).toEqual(["d@1"]);
    // While d@1 is being handled, a later commit of the same incident arrives and is held.
    stream.publish(commit("d", 2));
    gates.get("d@1")?.open();
    await reading;
    expect(read).toBe(true);
    await expect.poll(() => entered).toEqual(["d@1", "d@2"]);
    let later = false;
    const after = stream.projected("d").then(() => {
      later = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(later).toBe(false);
    gates.get("d@2")?.open();
    await after;
  });
});
