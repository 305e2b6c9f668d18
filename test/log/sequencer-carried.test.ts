import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { LogStore } from "../../functions/log/log-store.js";
import { silentLogger } from "../../functions/logger.js";
import { CarriedCommits } from "../../functions/store/carried-commits.js";
import type { Item } from "../../functions/store/commit-item.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { casualties, post, startArchive } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";
import {
  allLeaves,
  appendEvents,
  checkLogAgainstEvents,
  eventsFromApi,
  freshLogTable,
  writerOn,
} from "./log-kit.js";

const A = "carried-log-alpha";
const B = "carried-log-bravo";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await appendEvents(archive.url, [A, B], 3);
});
afterAll(() => archive.close());

/** A log writer whose every store call (events and log tables) is counted by command. */
function countedWriter(table: string) {
  const { db, calls } = countedClient(archive.dynamoEndpoint);
  const store = new LogStore(db, table);
  const events = new EventStore({ db, tables: archive.tables });
  const writer = createLogWriter({ store, events, signer: undefined as never, log: silentLogger });
  return {
    store,
    /** One pass over the incidents these stored items name, handed the items; the reads it made. */
    async sequence(items: Item[]) {
      const carried = new CarriedCommits();
      for (const item of items) carried.add(item.incidentId?.S ?? "", item);
      calls.length = 0;
      await writer.sequencer.sequence(carried.incidents, undefined, carried.usable());
      return calls.filter((name) => name === "QueryCommand" || name === "GetItemCommand").length;
    },
    close: () => db.destroy(),
  };
}

/** Appends one commit to an incident and returns its stored item. */
async function commitTo(incidentId: string, n: number): Promise<Item> {
  const answer = await post(
    archive.url,
    incidentId,
    casualties({ killed: { value: n, qualifier: "exact" } }),
  );
  expect(answer.status).toBe(201);
  let last: Item | undefined;
  for await (const item of archive.ledger.events.commitItems(incidentId, {
    after: answer.body.version - 1,
    afterEndsCommit: true,
  }))
    last = item;
  return last as Item;
}

describe("the log sequencer takes the commits it is handed", () => {
  it("after its own pass it sequences carried commits without reading them back; a gap, an altered event or another sequencer's leaves send it to the store; the log stays whole", async () => {
    const table = await freshLogTable(archive);
    const ours = countedWriter(table);
    // Cold: it reads the incidents' sequenced versions and commits from the store.
    expect(await ours.sequence([await commitTo(A, 1), await commitTo(B, 1)])).toBeGreaterThan(0);
    // Warm: each incident continues from the leaf this sequencer put last.
    expect(await ours.sequence([await commitTo(A, 2), await commitTo(B, 2)])).toBe(0);
    expect(await ours.sequence([await commitTo(A, 3), await commitTo(A, 4)])).toBe(0);

    // A gap: the commit before the one handed over is not carried.
    await commitTo(A, 5);
    expect(await ours.sequence([await commitTo(A, 6)])).toBeGreaterThan(0);

    // An event altered in the item: its hash fails, the stored commit is read instead.
    const item = await commitTo(B, 3);
    const event = JSON.parse(item.events?.L?.[0]?.S ?? "");
    event.data.figures.killed.value = 9_999;
    const altered = { ...item, events: { L: [{ S: JSON.stringify(event) }] } };
    expect(await ours.sequence([altered])).toBeGreaterThan(0);

    // Another sequencer puts A's next commit in the log; handed it again with the one after,
    // ours loses the slot, reads what is sequenced, and does not trust its own last leaf.
    const next = await commitTo(A, 7);
    await writerOn(archive, createDynamoClient(archive.dynamoEndpoint), table).sequencer.sequence([A]);
    expect(await ours.sequence([next, await commitTo(A, 8)])).toBeGreaterThan(0);

    const leaves = await allLeaves(ours.store);
    expect(checkLogAgainstEvents(leaves, await eventsFromApi(archive.url, [A, B])).problems).toEqual([]);
    ours.close();
  });
});
