import { type DynamoDBClient, paginateScan, QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { summarize } from "../../events/summarize.js";
import { fold } from "../../events/summary.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { Projector } from "../../functions/projector/projector.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import type { Item } from "../../functions/store/commit-item.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { EventStore } from "../../functions/store/event-store.js";
import { ACTIVITY_INDEX, LIST_PARTITION, type TableNames } from "../../functions/store/table-design.js";
import { SNAPSHOT_EVERY, ViewStore } from "../../functions/store/view-store.js";
import { startArchive } from "../support/archive.js";
import { longHistory, seedCommits } from "../support/long-history.js";

let archive: LocalServer;
let db: DynamoDBClient;
beforeAll(async () => {
  archive = await startArchive();
  db = createDynamoClient(archive.dynamoEndpoint);
});
afterAll(async () => {
  db.destroy();
  await archive.close();
});

/**
 * Lengths around the snapshot interval and past the 500 events a fold keeps at hand, so that
 * a retraction far back makes the rebuild read the store as the projector does.
 */
const LENGTHS = [1, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 1, 260, 1_234];

async function seeded(
  prefix: string,
): Promise<{ tables: TableNames; histories: Map<string, StoredEvent[]> }> {
  const tables = { events: `${prefix}-events`, claims: `${prefix}-claims`, views: `${prefix}-views` };
  await createTables(db, tables);
  const histories = new Map<string, StoredEvent[]>();
  for (const [k, length] of LENGTHS.entries()) {
    const id = `${prefix}-${k}`;
    const events = longHistory(id, length, 10 + k);
    histories.set(id, events);
    await seedCommits(db, tables.events, events);
  }
  return { tables, histories };
}

/** Every item of a table, by key, in full. */
async function tableItems(table: string): Promise<Map<string, Item>> {
  const out = new Map<string, Item>();
  for await (const page of paginateScan({ client: db }, { TableName: table })) {
    for (const item of page.Items ?? []) out.set(item.incidentId?.S ?? "", item);
  }
  return out;
}

/** The views table the projector makes of the same events, one incident at a time from nothing. */
async function projectedTable(tables: TableNames): Promise<Map<string, Item>> {
  const views = `${tables.views}-by-projector`;
  await createTables(db, { ...tables, views });
  const projector = new Projector(new EventStore({ db, tables }), new ViewStore(db, views));
  for (const id of (await new EventStore({ db, tables }).incidentVersions()).keys())
    await projector.project(id);
  return tableItems(views);
}

function parts(events: EventStore, tables: TableNames) {
  const views = new ViewStore(db, tables.views);
  return { events, views, projector: new Projector(events, views), log: silentLogger };
}

describe("rebuilding an empty views table from one scan of the events", () => {
  it("writes exactly the items the projector writes — views, snapshots — each view the fold of all its events", async () => {
    const { tables, histories } = await seeded("rebuild-same");
    const report = await repairViews({ ...parts(new EventStore({ db, tables }), tables), log: silentLogger });
    const total = LENGTHS.reduce((a, b) => a + b, 0);
    expect(report).toEqual({
      incidents: LENGTHS.length,
      built: LENGTHS.length,
      caughtUp: 0,
      events: total,
      failed: [],
    });

    const rebuilt = await tableItems(tables.views);
    const projected = await projectedTable(tables);
    expect([...rebuilt.keys()].sort()).toEqual([...projected.keys()].sort());
    // One snapshot per full hundred, as the projector takes them.
    const snapshots = [...rebuilt.keys()].filter((key) => key.includes("#snapshot#"));
    expect(snapshots).toHaveLength(LENGTHS.reduce((n, length) => n + Math.floor(length / SNAPSHOT_EVERY), 0));
    for (const [key, item] of projected) expect(rebuilt.get(key), key).toEqual(item);

    const views = new ViewStore(db, tables.views);
    for (const [id, events] of histories) {
      expect(await views.getSummary(id)).toEqual(summarize(fold(id, events)));
    }
    // The listing index holds no copy of the summaries; the listing reads them from the views.
    const index = await db.send(
      new QueryCommand({
        TableName: tables.views,
        IndexName: ACTIVITY_INDEX.name,
        KeyConditionExpression: "listPk = :p",
        ExpressionAttributeValues: { ":p": { S: LIST_PARTITION } },
      }),
    );
    expect(index.Items?.length).toBe(histories.size);
    expect(index.Items?.filter((item) => item.summary)).toEqual([]);
    const listed = await views.list({ limit: 100 });
    expect(new Set(listed.items)).toEqual(
      new Set([...histories].map(([id, events]) => summarize(fold(id, events)))),
    );
  });

  it("leaves to the projector an incident whose items the scan hands over apart or out of order", async () => {
    const { tables, histories } = await seeded("rebuild-apart");
    const [split, reversed] = [...histories.keys()].slice(4);
    /**
     * The real table, read back in an order DynamoDB does not use: one incident's items split
     * around the others', another's backwards. The rebuild must not trust the order.
     */
    class Disordered extends EventStore {
      override async *scanCommitPages(segment = 0): AsyncGenerator<Item[]> {
        if (segment !== 0) return;
        const all: Item[] = [];
        for await (const page of super.scanCommitPages()) all.push(...page);
        const of = (id: string | undefined) => all.filter((item) => item.incidentId?.S === id);
        const rest = all.filter((item) => item.incidentId?.S !== split && item.incidentId?.S !== reversed);
        const halves = of(split);
        const middle = Math.floor(halves.length / 2);
        yield halves.slice(0, middle);
        yield rest;
        yield of(reversed).reverse();
        yield halves.slice(middle);
      }
    }
    const report = await repairViews(parts(new Disordered({ db, tables }), tables));
    expect(report.failed).toEqual([]);
    expect(report.built + report.caughtUp).toBeGreaterThanOrEqual(LENGTHS.length);
    expect(report.caughtUp).toBe(2);
    const rebuilt = await tableItems(tables.views);
    const projected = await projectedTable(tables);
    for (const [key, item] of projected) expect(rebuilt.get(key), key).toEqual(item);
    expect(rebuilt.size).toBe(projected.size);
  });

  it("repairs a missing view beside existing ones with the same snapshots the projector takes", async () => {
    const { tables } = await seeded("rebuild-missing");
    const events = new EventStore({ db, tables });
    const projector = new Projector(events, new ViewStore(db, tables.views));
    // Every incident projected but the two longest: those views are missing, the sweep builds them.
    const ids = [...(await events.incidentVersions()).keys()].sort();
    for (const id of ids.slice(0, 4)) await projector.project(id);
    const report = await repairViews(parts(events, tables));
    expect(report).toMatchObject({ built: 2, caughtUp: 0, failed: [] });
    const rebuilt = await tableItems(tables.views);
    const projected = await projectedTable(tables);
    for (const [key, item] of projected) expect(rebuilt.get(key), key).toEqual(item);
    expect(rebuilt.size).toBe(projected.size);
  });
});
