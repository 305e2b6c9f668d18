import { ScanCommand, type ScanCommandInput } from "@aws-sdk/client-dynamodb";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";
import { seedArchive } from "./seed-archive.js";

/**
 * `node --expose-gc --import tsx test/export/measure-export-rate.ts [events] [events an incident]`
 * (default 100,000 and 100; `100000 5` makes 20,000 incidents): seeds an archive of that many
 * events in in-process dynalite, sequences it with the log's own
 * code, then times both exports over HTTP and samples the process's memory while they run.
 * Baseline: a bare paginated Scan of the same commit items (what any export must at least read).
 * Memory is reported as the growth of RSS and heap over the level before the export (run with
 * `node --expose-gc --import tsx …` to also get the live heap: sampled right after a collection);
 * dynalite holds the whole archive in this same process, so absolute RSS says little about the export.
 */
const total = Number(process.argv[2] ?? 100_000);
const perIncident = Number(process.argv[3] ?? 100);
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";

const archive = await startArchive();
const seedStart = performance.now();
const seeded = await seedArchive(archive, {
  incidents: Math.ceil(total / perIncident),
  eventsPerIncident: perIncident,
});
const seedSeconds = (performance.now() - seedStart) / 1000;

function sampler() {
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  let peakLive = before.heapUsed;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
    // With --expose-gc, every 10th sample collects first: what the export really holds, not garbage.
    if (global.gc && ++ticks % 10 === 0) {
      global.gc();
      peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
    }
  }, 20);
  return () => {
    clearInterval(timer);
    return {
      rssBeforeMB: before.rss / 2 ** 20,
      peakRssMB: peakRss / 2 ** 20,
      rssGrowthMB: (peakRss - before.rss) / 2 ** 20,
      heapGrowthMB: (peakHeap - before.heapUsed) / 2 ** 20,
      liveHeapGrowthMB: global.gc ? (peakLive - before.heapUsed) / 2 ** 20 : Number.NaN,
    };
  };
}

async function timedDownload(path: string) {
  // Timed alone: the memory pass below collects garbage every 200 ms, which would slow it.
  const timed = performance.now();
  const first = await fetch(`${archive.url}${path}`);
  for await (const _chunk of first.body as unknown as AsyncIterable<Uint8Array>);
  const timedSeconds = (performance.now() - timed) / 1000;
  const stop = sampler();
  const started = performance.now();
  const answer = await fetch(`${archive.url}${path}`);
  let bytes = 0;
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const memorySeconds = (performance.now() - started) / 1000;
  return { seconds: timedSeconds, memorySeconds, bytes, ...stop() };
}

async function rawScan() {
  const db = createDynamoClient(archive.dynamoEndpoint);
  const started = performance.now();
  let events = 0;
  let start: ScanCommandInput["ExclusiveStartKey"];
  do {
    const out = await db.send(
      new ScanCommand({ TableName: archive.tables.events, ExclusiveStartKey: start }),
    );
    for (const item of out.Items ?? []) events += item.events?.L?.length ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  db.destroy();
  return { seconds: (performance.now() - started) / 1000, events };
}

const scan = await rawScan();
const ndjson = await timedDownload("/export/events.ndjson");
const csv = await timedDownload("/export/incidents.csv");
const round = (n: number) => Math.round(n * 10) / 10;
const report = {
  node: process.version,
  events: seeded.size,
  incidents: Math.ceil(total / perIncident),
  seedAndSequenceSeconds: round(seedSeconds),
  baselineScan: { seconds: round(scan.seconds), eventsPerSecond: Math.round(scan.events / scan.seconds) },
  eventsNdjson: {
    seconds: round(ndjson.seconds),
    eventsPerSecond: Math.round(seeded.size / ndjson.seconds),
    MB: round(ndjson.bytes / 2 ** 20),
    vsScan: Math.round((seeded.size / ndjson.seconds / (scan.events / scan.seconds)) * 100) / 100,
    rssBeforeMB: round(ndjson.rssBeforeMB),
    peakRssMB: round(ndjson.peakRssMB),
    rssGrowthMB: round(ndjson.rssGrowthMB),
    heapGrowthMB: round(ndjson.heapGrowthMB),
    liveHeapGrowthMB: round(ndjson.liveHeapGrowthMB),
  },
  incidentsCsv: {
    seconds: round(csv.seconds),
    eventsPerSecond: Math.round(seeded.size / csv.seconds),
    rowsPerSecond: Math.round(Math.ceil(total / perIncident) / csv.seconds),
    KB: round(csv.bytes / 1024),
    rssBeforeMB: round(csv.rssBeforeMB),
    peakRssMB: round(csv.peakRssMB),
    rssGrowthMB: round(csv.rssGrowthMB),
    heapGrowthMB: round(csv.heapGrowthMB),
    liveHeapGrowthMB: round(csv.liveHeapGrowthMB),
  },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
await archive.close();
