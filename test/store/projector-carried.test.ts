import type { DynamoDBRecord } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fold, withoutUnsaved } from "../../events/summary.js";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { createStreamHandler } from "../../functions/projector/stream-handler.js";
import type { Item } from "../../functions/store/commit-item.js";
import { createTables } from "../../functions/store/create-tables.js";
import { casualties, opened, post, startArchive } from "../support/archive.js";
import { countedClient } from "../support/counted-client.js";
import { streamRecords } from "../support/stream-records.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

let projectors = 0;

/**
 * A second projector over the archive's events, with its own views table (so the archive's
 * projector never saves over it) and a client that counts the store calls it makes, by command.
 */
async function countedProjector() {
  projectors += 1;
  const { db, calls } = countedClient(archive.dynamoEndpoint);
  const tables = { ...archive.tables, views: `carried-views-${projectors}` };
  await createTables(db, tables);
  const ledger = createLedger({ db, tables, log: silentLogger });
  const handler = createStreamHandler(ledger.projector, silentLogger);
  return {
    calls,
    views: ledger.views,
    async deliver(records: DynamoDBRecord[]) {
      calls.length = 0;
      expect((await handler({ Records: records })).batchItemFailures).toEqual([]);
      return calls.filter((name) => name === "QueryCommand").length;
    },
    close: () => db.destroy(),
  };
}

/** What a fold of every stored event gives: the state a projection must end at. */
async function freshFold(incidentId: string) {
  const events = [];
  for await (const event of archive.ledger.events.events(incidentId)) events.push(event);
  return withoutUnsaved(fold(incidentId, events));
}

/** Posts `commits` commits to an incident (an opening first if it is new), and returns every commit's record. */
async function commitsTo(incidentId: string, commits: number, fresh = true): Promise<DynamoDBRecord[]> {
  if (fresh) await post(archive.url, incidentId, opened());
  for (let i = fresh ? 1 : 0; i < commits; i++) {
    const figures = { killed: { value: i, qualifier: "exact" } };
    expect((await post(archive.url, incidentId, casualties(figures, `source-${i % 3}`))).status).toBe(201);
  }
  return streamRecords(archive.ledger.events, incidentId);
}
const incidentOf = (incidentId: string, commits: number) => commitsTo(incidentId, commits);

describe("the projector folds the commits its stream records carry", () => {
  it("a warm projector folds carried commits with no Query, one commit or a batch at a time, to a fresh fold's state", async () => {
    const id = "carried-warm";
    const records = await incidentOf(id, 8);
    const projector = await countedProjector();
    await projector.deliver(records.slice(0, 2));
    // One record at a time: each commit costs its view put, not a read of the events.
    for (const record of records.slice(2, 5)) {
      expect(await projector.deliver([record])).toBe(0);
      expect(projector.calls).toEqual(["PutItemCommand"]);
    }
    expect(await projector.deliver(records.slice(5))).toBe(0);
    expect(await projector.views.getState(id)).toEqual(await freshFold(id));
    projector.close();
  });

  it("a gap, a reordered batch and duplicates only fall back to the store's read and still converge", async () => {
    const id = "carried-fallback";
    let records = await incidentOf(id, 2);
    const at = (...versions: number[]) => versions.map((v) => records[v - 1] as DynamoDBRecord);
    const projector = await countedProjector();
    await projector.deliver(at(1, 2));
    // Gap: commit 3's record is missing from the batch; the store's read folds 3 and 4.
    records = await commitsTo(id, 2, false);
    expect(await projector.deliver(at(4))).toBe(1);
    expect((await projector.views.getState(id))?.version).toBe(4);
    // Duplicates only: nothing carried is new; the read finds nothing further.
    expect(await projector.deliver(at(2, 4, 4))).toBe(1);
    // Reordered: 6 before 5.
    records = await commitsTo(id, 2, false);
    expect(await projector.deliver(at(6, 5))).toBe(1);
    expect((await projector.views.getState(id))?.version).toBe(6);
    // Old duplicates ahead of the next commit are passed over: carried again, no read.
    records = await commitsTo(id, 1, false);
    expect(await projector.deliver(at(5, 6, 7))).toBe(0);
    // A duplicate of 8 inside a batch: 8 is folded once, the repeat passed over.
    records = await commitsTo(id, 2, false);
    expect(await projector.deliver(at(8, 8, 9))).toBe(0);
    expect((await projector.views.getState(id))?.version).toBe(9);
    expect(await projector.views.getState(id)).toEqual(await freshFold(id));
    projector.close();
  });

  it("a cold projector reads the store, then continues from its view with the records", async () => {
    const id = "carried-cold";
    const records = await incidentOf(id, 6);
    const first = await countedProjector();
    // No view and a first record beyond version 1: the store's read folds everything stored.
    expect(await first.deliver(records.slice(2, 3))).toBe(1);
    expect(await first.views.getState(id)).toEqual(await freshFold(id));
    first.close();
    expect(await (await countedProjector()).deliver(records.slice(0, 1))).toBe(0);
    expect(await (await countedProjector()).deliver(records)).toBe(0);
    const last = await countedProjector();
    expect(await last.deliver(records.slice(0, 3))).toBe(0);
    expect(await last.deliver(records.slice(3))).toBe(0);
    expect(await last.views.getState(id)).toEqual(await freshFold(id));
  });

  it("a record that does not decode, or whose events are not the stored chain, is not trusted: the store is read", async () => {
    const id = "carried-untrusted";
    const records = await incidentOf(id, 4);
    const projector = await countedProjector();
    await projector.deliver(records.slice(0, 2));
    const image = (n: number) => records[n]?.dynamodb?.NewImage as unknown as Item;
    const withImage = (n: number, item: Item): DynamoDBRecord => ({
      ...(records[n] as DynamoDBRecord),
      dynamodb: { ...records[n]?.dynamodb, NewImage: item as never },
    });
    // Commit 3 with a figure altered in its event: the hash no longer matches, the store wins.
    const events = image(2).events?.L ?? [];
    const altered = JSON.parse(events[0]?.S ?? "");
    altered.data.figures.killed.value = 9_999;
    const tampered = withImage(2, { ...image(2), events: { L: [{ S: JSON.stringify(altered) }] } });
    expect(await projector.deliver([tampered])).toBe(1);
    expect((await projector.views.getState(id))?.version).toBe(4);
    expect(await projector.views.getState(id)).toEqual(await freshFold(id));

    // A record that does not decode sends its whole incident's batch to the store.
    const other = "carried-undecodable";
    const more = await incidentOf(other, 3);
    const second = await countedProjector();
    await second.deliver(more.slice(0, 1));
    const broken = {
      ...(more[2] as DynamoDBRecord),
      dynamodb: {
        ...more[2]?.dynamodb,
        NewImage: { ...more[2]?.dynamodb?.NewImage, events: { L: [{ S: "{" }] } },
      },
    } as DynamoDBRecord;
    expect(await second.deliver([more[1] as DynamoDBRecord, broken])).toBe(1);
    expect(await second.views.getState(other)).toEqual(await freshFold(other));
    projector.close();
    second.close();
  });
});
