import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnvelope } from "../../events/validate.js";
import type { LocalServer } from "../../functions/local/server.js";
import { EventStore } from "../../functions/store/event-store.js";
import { call, casualties, opened, post, startArchive } from "../support/archive.js";
import { faultyClient } from "../support/faulty-client.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

describe("a commit whose put failed without an answer", () => {
  it("reaches the projector and the log only as a key, so neither shows what was never stored", async () => {
    const id = "unstored-commit";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    await archive.sequencing.idle();
    // A writer wired as the local server wires its own, whose put of the commit never reaches the store.
    const writer = new EventStore({
      db: faultyClient(archive.dynamoEndpoint, (c) =>
        c.command === "PutItemCommand" && c.table === archive.tables.events ? "crash-before" : "none",
      ),
      tables: archive.tables,
      onCommit: (item) => {
        archive.stream.publish(item);
        archive.sequencing.notify(item.incidentId?.S ?? "", item);
      },
    });
    const envelope = parseEnvelope(casualties({ killed: { value: 999, qualifier: "exact" } }));
    if (!envelope.ok) throw new Error("bad fixture");
    await expect(
      writer.append({ incidentId: id, envelopes: [envelope.value], recordedBy: "w", batched: false }),
    ).rejects.toMatchObject({ name: "InjectedCrashError" });
    await archive.stream.idle();
    await archive.sequencing.idle();

    const summary = await call(archive.url, "GET", `/incidents/${id}`);
    expect(summary.body.version).toBe(1);
    expect(summary.body.casualties).toEqual({});
    const checkpoint = await fetch(`${archive.url}/log/checkpoint`).then((r) => r.text());
    expect(checkpoint.split("\n")[1]).toBe("1");

    // The real version 2, stored later by another writer, is what the view and the log take.
    expect(
      (await post(archive.url, id, casualties({ killed: { value: 5, qualifier: "exact" } }))).status,
    ).toBe(201);
    await archive.sequencing.idle();
    const after = await call(archive.url, "GET", `/incidents/${id}?minVersion=2`);
    expect(after.body.casualties.killed.low).toBe(5);
    const proof = await call(archive.url, "GET", `/incidents/${id}/events?after=1`);
    const stored = proof.body.items[0];
    const leaf = await call(archive.url, "GET", `/incidents/${id}/events/${stored.eventId}/proof?wait=true`);
    expect(leaf.body.index).toBe(1);
  });
});
