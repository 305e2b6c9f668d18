import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeReadmeBlock } from "../lib/readme.js";

/**
 * `tsx bench/scale/report.ts --base 10000 --size N`: the issue's scale table from two runs of
 * `bench/scale/run.ts` (bench/results/scale/<size>.json), written between the README's
 * `scale` markers and printed. Every ratio but the reads' growth is within one run; the reads
 * compare the two sizes.
 */
const { values } = parseArgs({
  options: {
    base: { type: "string", default: "10000" },
    size: { type: "string" },
    /** Sizes between, whose peak RSS is shown beside (the issue asks it be the same at each). */
    also: { type: "string", multiple: true, default: [] },
  },
});
const ROOT = resolve(new URL("../..", import.meta.url).pathname);
const read = (n: string) =>
  JSON.parse(readFileSync(join(ROOT, "bench/results/scale", `${n}.json`), "utf8")) as Run;
const base = read(values.base as string);
const big = read((values.size ?? values.base) as string);
const between = (values.also as string[]).map(read);

interface Latency {
  p50: number;
  p99: number;
}
interface Run {
  events: number;
  startedAt: string;
  finishedAt: string;
  commit?: { sha: string; dirty: boolean };
  machine?: { cpu: string; cores: number; memoryGb: number; node: string };
  load: string;
  loadAfter: string;
  loads?: Record<string, string>;
  /** `concurrency`: the requests it kept in flight. */
  import: { eventsPerSecond: number; seconds: number; concurrency?: number };
  importBaseline: { eventsPerSecond: number; ratio: number; events: number | null };
  /** What a resumed run (`--resume`) says of where its figures come from. */
  note?: string;
  reads: Record<string, Latency>;
  exports: {
    eventsNdjson: { mbPerSecond: number; ratio: number; seconds: number; bytes: number };
    /** The same export asked for gzip'd, as a browser does (one pass; runs before it lack it). */
    eventsNdjsonGzip?: { mbPerSecond: number; ratio: number; seconds: number };
    incidentsCsv: { mbPerSecond: number; ratio: number; seconds: number; bytes: number; timeRatio?: number };
    rawScan: { mbPerSecond: number; seconds: number };
  };
  verify: {
    ok: boolean;
    leavesPerSecond: number;
    sha256LoopPerSecond: number;
    ratio: number;
    seconds: number;
  };
  rebuild: {
    ok: boolean;
    eventsPerSecond: number;
    rawScanEventsPerSecond: number;
    ratio: number;
    seconds: number;
    reportedSeconds?: number | null;
  };
  rssMb: Record<string, number | null>;
  ownMemoryMb?: { server: number | null; store: number | null };
  serverRssAfterImportMb?: number | null;
  /** live-heap.ts after the import settled, and at the run's end: V8's heap in use after a full collection. */
  serverLiveAfterImportMb?: LiveHeap | null;
  serverLiveAtEndMb?: LiveHeap | null;
  searchIndex?: { items: number; approxBytes: number };
}

interface LiveHeap {
  rssBeforeMb: number | null;
  rssAfterMb: number | null;
  heapUsedMb: number;
}

const n = (x: number) => Math.round(x).toLocaleString("en-US");
const r = (x: number) => x.toFixed(x < 1 ? 3 : 2);
const verdict = (ok: boolean) => (ok ? "met" : "**missed**");
const size = n(big.events);
const baseSize = n(base.events);

const rows: string[] = [
  `| figure | at ${size} events | baseline in the same run | ratio | goal | |`,
  "| --- | --- | --- | --- | --- | --- |",
  `| import events/s (\`npm run import\`, ${big.import.concurrency ?? 8} in flight) | ${n(big.import.eventsPerSecond)} (${n(big.import.seconds)} s) | raw BatchWriteItem of the same commit items (${big.importBaseline.events ? `${n(big.importBaseline.events)} events` : "a sample of at most 50,000 events"}): ${n(big.importBaseline.eventsPerSecond)} | ${r(big.importBaseline.ratio)} | ≥ 0.3 | ${verdict(big.importBaseline.ratio >= 0.3)} |`,
];
const READS: [string, string][] = [
  ["summary", "summary (`GET /incidents/{id}`)"],
  ["incidentPage", "incident page (`/view/{id}`)"],
  ["listingPage", "listing, first page (`GET /incidents?limit=20`)"],
  ["listingWalk", "listing, its first 25 pages by cursor"],
  ["listingHtml", "listing page (`/`)"],
  ["search", "search (`GET /incidents?q=<word>`)"],
  ["sourcePage", "source (`GET /sources/{name}`)"],
  ["sourcePageTen", "source, 10 incidents a page (`?limit=10`)"],
];
for (const [key, label] of READS) {
  const a = base.reads[key];
  const b = big.reads[key];
  if (!a || !b) continue;
  const g50 = b.p50 / a.p50;
  const g99 = b.p99 / a.p99;
  rows.push(
    `| ${label} p50 / p99 ms | ${b.p50.toFixed(1)} / ${b.p99.toFixed(1)} | the same at ${baseSize} events: ${a.p50.toFixed(1)} / ${a.p99.toFixed(1)} | ${r(g50)} / ${r(g99)} | ≤ 1.3 | ${verdict(g50 <= 1.3 && g99 <= 1.3)} |`,
  );
}
const { eventsNdjson: nd, eventsNdjsonGzip: gz, incidentsCsv: csv, rawScan } = big.exports;
rows.push(
  `| \`events.ndjson\` MB/s (uncompressed, as \`curl\` asks) | ${nd.mbPerSecond} (${nd.seconds.toFixed(1)} s) | raw 4-segment Scan of the events table as JSON lines: ${rawScan.mbPerSecond} (${rawScan.seconds.toFixed(1)} s) | ${r(nd.ratio)} | ≥ 0.5 | ${verdict(nd.ratio >= 0.5)} |`,
  ...(gz
    ? [
        `| \`events.ndjson\` gzip'd (as a browser asks), MB/s of the events' JSON | ${gz.mbPerSecond} (${gz.seconds.toFixed(1)} s) | the same Scan | ${r(gz.ratio)} | | |`,
      ]
    : []),
  `| \`incidents.csv\` MB/s | ${csv.mbPerSecond} (${(csv.bytes / 1e6).toFixed(1)} MB in ${csv.seconds.toFixed(1)} s) | the same Scan | ${r(csv.ratio)}${csv.timeRatio ? ` (in time: ${r(csv.timeRatio)})` : ""} | ≥ 0.5 | ${verdict(csv.ratio >= 0.5)} |`,
  `| \`npm run verify\` leaves/s | ${n(big.verify.leavesPerSecond)} (${big.verify.seconds.toFixed(0)} s, ${big.verify.ok ? "ok" : "FAILED"}) | SHA-256 of the same events and leaves, one loop: ${n(big.verify.sha256LoopPerSecond)} | ${r(big.verify.ratio)} | ≥ 0.3 | ${verdict(big.verify.ratio >= 0.3)} |`,
  `| \`npm run rebuild\` (an empty views table) events/s | ${n(big.rebuild.eventsPerSecond)} (${big.rebuild.seconds.toFixed(0)} s${big.rebuild.reportedSeconds ? `; ${n(big.events / big.rebuild.reportedSeconds)}/s by its own clock` : ""}) | raw 4-segment Scan: ${n(big.rebuild.rawScanEventsPerSecond)} | ${r(big.rebuild.ratio)} | ≥ 0.5 | ${verdict(big.rebuild.ratio >= 0.5)} |`,
);
const rss = (run: Run) =>
  ["server", "store", "import", "verify", "rebuild"].map((k) => `${run.rssMb[k] ?? "?"}`).join(" / ");
const own = (run: Run) => `${run.ownMemoryMb?.server ?? "?"} / ${run.ownMemoryMb?.store ?? "?"}`;
const live = (run: Run) =>
  [run.serverLiveAfterImportMb, run.serverLiveAtEndMb]
    .map((h) => (h ? `${h.heapUsedMb} (RSS ${h.rssBeforeMb} → ${h.rssAfterMb})` : "?"))
    .join(" / ");
const others = [base, ...between].map((run) => `${n(run.events)}: ${rss(run)}`).join("; ");
rows.push(
  `| peak RSS MB: server / its store / import / verify / rebuild | ${rss(big)} | at ${others} | | bounded | ${big.events === base.events ? "—" : "see below"} |`,
  `| peak own memory (RssAnon) MB: server / its store | ${own(big)} | at ${[base, ...between].map((run) => `${n(run.events)}: ${own(run)}`).join("; ")} | | bounded | |`,
  `| server's live heap after a full collection MB (its RSS before → after): import settled / run's end | ${live(big)} | at ${[base, ...between].map((run) => `${n(run.events)}: ${live(run)}`).join("; ")} | | bounded | |`,
);

const loads = (run: Run) =>
  Object.entries(run.loads ?? {})
    .map(([phase, load]) => `${phase} ${load.split(" ")[0]}`)
    .join(", ");
const machine = big.machine
  ? `${big.machine.cores} × ${big.machine.cpu}, ${big.machine.memoryGb} GB, Node ${big.machine.node}`
  : "unknown";
const markdown = [
  `Runs of \`tsx bench/scale/run.ts\` at ${size} and ${baseSize} events (${big.startedAt.slice(0, 16)} and ${base.startedAt.slice(0, 16)} UTC, commit ${big.commit?.sha.slice(0, 10) ?? "?"}${big.commit?.dirty ? ", uncommitted changes" : ""}), \`npm start\` on disk (DATA_DIR) in its own process. Machine: ${machine}, shared with other work: load average (1 min) as each phase started, ${size}: ${loads(big)}; ${baseSize}: ${loads(base)}.${big.note ? ` At ${size}: ${big.note}` : ""}`,
  "",
  ...rows,
  "",
  `Finding index at ${size} events: ${big.searchIndex ? `${n(big.searchIndex.items)} items, ≈ ${(big.searchIndex.approxBytes / 1e6).toFixed(0)} MB as JSON` : "not measured"}. Server peak RSS after the import: ${[big, ...[...between].reverse(), base].map((run) => `${run.serverRssAfterImportMb ?? "?"} MB at ${n(run.events)}`).join(", ")}.`,
].join("\n");

writeReadmeBlock("scale", markdown);
process.stdout.write(`${markdown}\n`);
