import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INCIDENT_HEADER, incidentRecord } from "../../events/export/incident-row.js";
import { Exporter, type SummaryReader } from "../../functions/export/exports.js";
import { FeedReader } from "../../functions/export/feed-reader.js";
import type { LogReader } from "../../functions/export/log-reader.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";
import { loadSample, text, waitForCheckpoint } from "./export-kit.js";
import { seedArchive } from "./seed-archive.js";

/**
 * Releases are cited by their bytes: the bounded-memory incidents.csv must write exactly what
 * the first implementation wrote for the same log. The oracle below is that implementation,
 * kept verbatim (one map entry per incident, sorted at the end); the new one runs with runs of
 * three incidents merged two at a time, so that every row passes through files on disk.
 */
async function oracleCsv(log: LogReader, reader: SummaryReader, treeSize: number): Promise<string> {
  const lastVersion = new Map<string, number>();
  for await (const leaf of log.leaves(0, treeSize)) {
    if (leaf.version > (lastVersion.get(leaf.incidentId) ?? 0))
      lastVersion.set(leaf.incidentId, leaf.version);
  }
  const ids = [...lastVersion.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let csv = INCIDENT_HEADER;
  for (const incidentId of ids) {
    const summary = await reader.summary(incidentId, {
      at: "version",
      version: lastVersion.get(incidentId) as number,
    });
    if (!summary) throw new Error(`no summary of ${incidentId}`);
    csv += incidentRecord(summary);
  }
  return csv;
}

async function joined(chunks: AsyncGenerator<string>): Promise<string> {
  let all = "";
  for await (const chunk of chunks) all += chunk;
  return all;
}

let archive: LocalServer;
let db: ReturnType<typeof createDynamoClient>;
let size: number;

beforeAll(async () => {
  archive = await startArchive();
  await loadSample(archive.url);
  const sample = (await waitForCheckpoint(archive, 1)).size;
  // Then 40 incidents of 6 events each, interleaved in the log.
  size = (await seedArchive(archive, { incidents: 40, eventsPerIncident: 6 })).size;
  expect(size).toBeGreaterThan(sample + 200);
  db = createDynamoClient(archive.dynamoEndpoint);
}, 120_000);

afterAll(async () => {
  db?.destroy();
  await archive?.close();
});

describe("incidents.csv with memory bounded by a run of incidents", () => {
  it("writes the same bytes as the one-map implementation, at every tree size tried, through runs on disk", async () => {
    const log = archive.ledger.logStore;
    const reader = archive.ledger.reader;
    const spilled = new Exporter(new FeedReader(db, archive.tables.events, log), log, reader, {
      runSize: 3,
      fanIn: 2,
    });
    for (const treeSize of [1, 7, Math.floor(size / 3), size - 1, size]) {
      const expected = await oracleCsv(log, reader, treeSize);
      expect(expected.split("\r\n").length).toBeGreaterThan(2);
      expect(await joined(spilled.incidentsCsv(treeSize))).toBe(expected);
    }
    // Rows read from the stored views where a view is at the row's version, folded where it is
    // ahead: the same bytes at every size (the small sizes are all past views, the whole log all views).
    // The seeded commits bypassed the API: their views are built here, as `npm start` does at start.
    await repairViews({ ...archive.ledger, log: silentLogger });
    const views = archive.ledger.views;
    let fromViews = 0;
    const viewing = new Exporter(new FeedReader(db, archive.tables.events, log), log, {
      summary: (id, query) => reader.ownSummary(id, query),
      currentSummaries: async (ids) => {
        const found = await views.getSummariesJson(ids);
        fromViews += found.size;
        return found;
      },
    });
    for (const treeSize of [1, 7, Math.floor(size / 3), size - 1, size]) {
      expect(await joined(viewing.incidentsCsv(treeSize))).toBe(await oracleCsv(log, reader, treeSize));
    }
    expect(fromViews).toBeGreaterThan(40);
    // And the route, with its default run size, serves the same bytes.
    const served = await text(archive.url, `/export/incidents.csv?treeSize=${size}`);
    expect(served.body).toBe(await oracleCsv(log, reader, size));
  });
});
