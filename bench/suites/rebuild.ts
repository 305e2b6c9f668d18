import {
  type DynamoDBClient,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from "@aws-sdk/client-dynamodb";
import type { StoredEvent } from "../../events/stored-event.js";
import { fold } from "../../events/summary.js";
import { silentLogger } from "../../functions/logger.js";
import { Projector } from "../../functions/projector/projector.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import { createTables, tableDefinitions } from "../../functions/store/create-tables.js";
import { EventStore } from "../../functions/store/event-store.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { ViewStore } from "../../functions/store/view-store.js";
import { createTable, startDynalite } from "../lib/dynamo.js";
import { makeHistory, storeHistory } from "../lib/history.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row } from "../lib/row.js";
import { eachLimited } from "../lib/seed.js";
import { median } from "../lib/stats.js";
import type { Suite } from "../lib/suite.js";

const CONCURRENCY = 8;
/** Segments of the rebuild's parallel scan (repairViews' default). */
const SEGMENTS = 4;

/**
 * Rebuilding every view from the stored events (a fresh views table, nothing remembered: the
 * `npm run rebuild` path) against the raw paginated Query of the same items, 8 incidents at
 * once; beside it, for context, a raw Scan of the same items (what the rebuild reads them
 * with) and the pure fold alone over the same events already in memory.
 */
export const rebuild: Suite = {
  name: "Rebuild",
  steps: (sizes) => 1 + sizes.rounds * 3 + 1,
  async run(ctx) {
    const { sizes, progress } = ctx;
    const dynamo = await startDynalite();
    const db = dynamo.client();
    const tables: TableNames = { events: "rebuild-events", claims: "rebuild-claims", views: "rebuild-views" };
    try {
      await createTables(db, tables);
      progress.note(`sealing and storing ${sizes.rebuildEvents.toLocaleString("en-US")} events`);
      const history = makeHistory(sizes.rebuildIncidents, sizes.rebuildEvents);
      const stored = await storeHistory(db, tables.events, history);
      const ids = [...history.keys()];
      progress.step(`stored ${stored.toLocaleString("en-US")} events`);

      const raw: number[] = [];
      const scans: number[] = [];
      const ours: number[] = [];
      for (let round = 0; round < sizes.rounds; round++) {
        raw.push(await timed(() => rawQueryAll(db, tables.events, ids, stored)));
        progress.step(`raw Query, round ${round + 1}`);
        scans.push(await timed(() => rawScanAll(db, tables.events, stored)));
        progress.step(`raw Scan, round ${round + 1}`);
        ours.push(await timed(() => rebuildAll(db, tables, ids, round)));
        progress.step(`rebuild, round ${round + 1}`);
      }
      const rawRate = stored / (median(raw) / 1000);
      const scanRate = stored / (median(scans) / 1000);
      const ourRate = stored / (median(ours) / 1000);
      const foldRate = pureFoldRate(history, stored);
      progress.step("pure fold");
      const size = stored.toLocaleString("en-US");
      const baselineName = `raw paginated Query of every commit item (${CONCURRENCY} incidents at once)`;
      return [
        row({
          id: "rebuild.views",
          group: `Rebuild every view from ${size} stored events (${ids.length} incidents)`,
          title: "rebuild speed",
          unit: "events/s",
          subject: ourRate,
          baseline: rawRate,
          baselineName,
          goal: ratioGoal(">=", 0.8),
        }),
        row({
          id: "rebuild.scan",
          group: `Rebuild every view from ${size} stored events (${ids.length} incidents)`,
          title: `raw parallel Scan of every commit item (${SEGMENTS} segments), as the rebuild reads them`,
          unit: "events/s",
          subject: scanRate,
          baseline: rawRate,
          baselineName,
          goal: context("context: what reading by one Scan instead of a Query per incident is worth alone"),
        }),
        row({
          id: "rebuild.fold",
          group: `Rebuild every view from ${size} stored events (${ids.length} incidents)`,
          title: "pure fold alone (events in memory)",
          unit: "events/s",
          subject: foldRate,
          baseline: rawRate,
          baselineName,
          goal: context("context: how far the fold is from being the bottleneck"),
        }),
      ] satisfies Row[];
    } finally {
      db.destroy();
      await dynamo.close();
    }
  },
};

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

export async function rawQueryAll(
  db: DynamoDBClient,
  table: string,
  ids: string[],
  expected: number,
): Promise<void> {
  let count = 0;
  await eachLimited(ids, CONCURRENCY, async (incidentId) => {
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: "incidentId = :i",
          ExpressionAttributeValues: { ":i": { S: incidentId } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      count += out.Items?.length ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
  });
  if (count !== expected) throw new Error(`raw Query read ${count} items, expected ${expected}`);
}

/** The same items as one parallel Scan, with as many segments as the rebuild's scan. */
export async function rawScanAll(db: DynamoDBClient, table: string, expected: number): Promise<void> {
  let count = 0;
  await eachLimited([...Array(SEGMENTS).keys()], SEGMENTS, async (segment) => {
    let start: ScanCommandInput["ExclusiveStartKey"];
    do {
      const out = await db.send(
        new ScanCommand({
          TableName: table,
          Segment: segment,
          TotalSegments: SEGMENTS,
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      count += out.Items?.length ?? 0;
      start = out.LastEvaluatedKey;
    } while (start);
  });
  if (count !== expected) throw new Error(`raw Scan read ${count} items, expected ${expected}`);
}

/**
 * What `npm run rebuild` (and the view-repair Lambda) does with a fresh views table: the
 * repair sweep finds no view, so it rebuilds every one from a scan of the events.
 */
export async function rebuildAll(
  db: DynamoDBClient,
  tables: TableNames,
  ids: string[],
  round: number,
): Promise<void> {
  const views = `${tables.views}-${round}`;
  const definition = tableDefinitions({ ...tables, views }).find((d) => d.TableName === views);
  if (!definition) throw new Error("no views table definition");
  await createTable(db, definition);
  const events = new EventStore({ db, tables });
  const store = new ViewStore(db, views);
  const report = await repairViews(
    { events, views: store, projector: new Projector(events, store), log: silentLogger },
    { concurrency: CONCURRENCY, segments: SEGMENTS },
  );
  if (report.built + report.caughtUp !== ids.length || report.failed.length > 0) {
    throw new Error(
      `rebuild built ${report.built} + ${report.caughtUp} views of ${ids.length}: ${JSON.stringify(report).slice(0, 600)}`,
    );
  }
}

function pureFoldRate(history: Map<string, StoredEvent[]>, total: number): number {
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    for (const [incidentId, events] of history) fold(incidentId, events);
    times.push(performance.now() - started);
  }
  return total / (Math.min(...times) / 1000);
}
