import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  type DynamoDBClient,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { canonicalJson, sha256Hex } from "../../events/stored-event.js";
import { hashLeaf } from "../../events/transparency/merkle.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { tableNamesFromEnv } from "../../functions/store/table-design.js";
import { gitCommit, machine } from "../lib/results.js";
import { percentile } from "../lib/stats.js";

/**
 * `tsx bench/scale/run.ts --events N [--dir D]`: the issue's scale table at one size, measured
 * on `npm start` (its own process, on disk) with the real commands, each beside its raw baseline
 * in the same run:
 *
 * - import: `npm run import` of the generated export (events/s) vs raw BatchWriteItem of the
 *   same commit items into the same dynalite;
 * - reads: p50/p99 of the summary, the incident page, the listing page, a search and a source
 *   page (compare with the same file written at 10,000 events);
 * - exports: events.ndjson and incidents.csv MB/s vs a raw parallel Scan writing JSON lines;
 * - verify: `npm run verify` leaves/s vs SHA-256 of the same events and leaves in one loop;
 * - rebuild: `npm run rebuild` into an empty views table, events/s vs a raw parallel Scan;
 * - peak RSS (VmHWM) of each process.
 *
 * Writes bench/results/scale/<N>.json (and prints it). The machine's load is recorded with it.
 */
const { values } = parseArgs({
  options: {
    events: { type: "string", default: "10000" },
    dir: { type: "string" },
    concurrency: { type: "string", default: "8" },
    reads: { type: "string", default: "200" },
    /** Go on from bench/results/scale/<N>.partial.json: its phases are not run again (the archive in --dir must hold them). */
    resume: { type: "boolean", default: false },
  },
});
const N = Number(values.events);
const DIR = resolve(values.dir ?? `/tmp/ledger-scale-${N}`);
const ROOT = resolve(new URL("../..", import.meta.url).pathname);
const TOKEN = "scale-token-0123456789abcdef";
const PORT = 3300 + (process.pid % 500);
const DYNAMO_PORT = PORT + 1000;
/** Where the server's inspector opens when `liveHeap` asks (see live-heap.ts); nothing listens before. */
const INSPECT_PORT = PORT + 2000;
const URL_ = `http://127.0.0.1:${PORT}`;
mkdirSync(DIR, { recursive: true });
// A new run imports into an empty archive; only --resume goes on with the one a run left.
if (!values.resume) rmSync(join(DIR, "data"), { recursive: true, force: true });
const OUT = join(ROOT, "bench/results/scale");
const PARTIAL = join(OUT, `${N}.partial.json`);
// A run at a million takes an hour: each phase's figures are saved as it ends, so a run that
// stops late can go on (`--resume`) instead of starting again.
const results: Record<string, unknown> = values.resume
  ? {
      ...JSON.parse(readFileSync(PARTIAL, "utf8")),
      resumedAt: new Date().toISOString(),
      resumedCommit: gitCommit(ROOT),
    }
  : {
      events: N,
      startedAt: new Date().toISOString(),
      commit: gitCommit(ROOT),
      machine: machine(),
      load: loadAverage(),
    };
const savePartial = () => {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(PARTIAL, `${JSON.stringify(results, null, 2)}\n`);
};
/** The load average as each phase starts: the machine is shared, so each row says what it ran beside. */
const loads: Record<string, string> = (results.loads as Record<string, string>) ?? {};
results.loads = loads;

function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

function peakRss(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * The peak of a process's own memory (RssAnon), sampled: VmHWM also counts the file pages it has
 * mapped, and LevelDB maps the store's table files, which the kernel drops when it needs the room.
 */
class OwnMemory {
  private readonly peaks = new Map<number, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(pids: () => (number | undefined)[]) {
    this.timer = setInterval(() => {
      for (const pid of pids()) {
        if (!pid) continue;
        try {
          const m = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
          if (m) this.peaks.set(pid, Math.max(this.peaks.get(pid) ?? 0, Number(m[1])));
        } catch {}
      }
    }, 500);
    this.timer.unref();
  }

  peakMb(pid: number | undefined): number | null {
    const kb = pid ? this.peaks.get(pid) : undefined;
    return kb === undefined ? null : Math.round(kb / 1024);
  }
}

/** npm start's store process (functions/local/store-process.ts): the child running store-main. */
function storePid(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/);
    return children
      .map(Number)
      .find((child) => readFileSync(`/proc/${child}/cmdline`, "utf8").includes("store-main"));
  } catch {
    return undefined;
  }
}

/** What the server holds alive after a full collection (live-heap.ts), beside its RSS then; null if it could not be read. */
function liveHeap(pid: number | undefined): Record<string, number | null> | null {
  if (!pid) return null;
  const probe = spawnSync(
    process.execPath,
    [
      "--experimental-websocket",
      "--import",
      "tsx",
      "bench/scale/live-heap.ts",
      String(pid),
      String(INSPECT_PORT),
    ],
    { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_NO_WARNINGS: "1" } },
  );
  if (probe.status !== 0) {
    log(`live heap not read: ${probe.stderr.trim()}`);
    return null;
  }
  return JSON.parse(probe.stdout) as Record<string, number | null>;
}

/** A command of the project as a user runs it; resolves with its wall time and peak RSS (MB). */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ ms: number; rssMb: number | null; stdout: string; code: number | null }> {
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", ...args], {
    cwd: ROOT,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let rss: number | null = null;
  const poll = setInterval(() => {
    rss = peakRss(child.pid) ?? rss;
  }, 200);
  child.stdout.on("data", (c) => {
    stdout += c;
  });
  child.stderr.on("data", (c) => {
    stderr += c;
    if (stderr.length > 100_000) stderr = stderr.slice(-50_000);
  });
  return new Promise((done) => {
    child.once("close", (code) => {
      clearInterval(poll);
      if (code !== 0) process.stderr.write(`${args.join(" ")} exited ${code}:\n${stderr.slice(-2000)}\n`);
      done({ ms: Date.now() - started, rssMb: rss, stdout, code });
    });
  });
}

async function startServer(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [`--inspect-port=127.0.0.1:${INSPECT_PORT}`, "--import", "tsx", "functions/local/main.ts"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
        PORT: String(PORT),
        DYNAMO_PORT: String(DYNAMO_PORT),
        DATA_DIR: join(DIR, "data"),
        LEDGER_TOKEN: TOKEN,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  for (let i = 0; i < 600; i += 1) {
    await new Promise((r) => setTimeout(r, 250));
    try {
      if ((await fetch(`${URL_}/health`)).ok) return child;
    } catch {}
  }
  throw new Error("npm start did not answer /health");
}

const db: DynamoDBClient = createDynamoClient(`http://127.0.0.1:${DYNAMO_PORT}`);
const tables = tableNamesFromEnv({});

/** Every item of a table, a parallel Scan in `segments`; `each` sees each page. */
async function scanAll(
  table: string,
  segments: number,
  each: (items: Record<string, AttributeValue>[]) => void | Promise<void>,
  projection?: string,
) {
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let start: Record<string, AttributeValue> | undefined;
      do {
        const out = await db.send(
          new ScanCommand({
            TableName: table,
            Segment: segment,
            TotalSegments: segments,
            ExclusiveStartKey: start,
            ...(projection ? { ProjectionExpression: projection } : {}),
          }),
        );
        await each(out.Items ?? []);
        start = out.LastEvaluatedKey;
      } while (start);
    }),
  );
}

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await f();
  return { ms: performance.now() - started, value };
}

async function latencies(
  paths: string[],
  concurrency = 4,
): Promise<{ p50: number; p99: number; count: number }> {
  const samples: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < paths.length) {
        const path = paths[next++] as string;
        const t = performance.now();
        const r = await fetch(`${URL_}${path}`);
        await r.arrayBuffer();
        samples.push(performance.now() - t);
        if (r.status >= 500) throw new Error(`${path}: ${r.status}`);
      }
    }),
  );
  return {
    p50: Number(percentile(samples, 50).toFixed(2)),
    p99: Number(percentile(samples, 99).toFixed(2)),
    count: samples.length,
  };
}

/** Pages of the listing walked from the first by their cursors: 500 incidents, all of them at 10,000 events. */
const LISTING_WALK_PAGES = 25;

/** The paths of the listing's first `pages` pages (20 a page), by following nextCursor, `times` over. */
async function listingPaths(pages: number, times: number): Promise<string[]> {
  const paths: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i += 1) {
    const path: string = `/incidents?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    paths.push(path);
    cursor = ((await (await fetch(`${URL_}${path}`)).json()) as { nextCursor: string | null }).nextCursor;
    if (!cursor) break;
  }
  return Array.from({ length: times }, () => paths).flat();
}

const file = join(DIR, `scale-${N}.ndjson`);
const log = (line: string) => process.stderr.write(`[scale ${N}] ${line}\n`);

if (!existsSync(file)) {
  const gen = await run(["bench/scale/generate.ts", "--events", String(N), "--out", file]);
  results.generate = { seconds: gen.ms / 1000, rssMb: gen.rssMb };
  log(`generated in ${(gen.ms / 1000).toFixed(1)} s`);
}

const server = await startServer();
const serverPid = server.pid;
const serverStorePid = storePid(serverPid);
const ownMemory = new OwnMemory(() => [serverPid, serverStorePid]);
try {
  // ── Import through the API, then the raw baseline: the same commit items, BatchWriteItem ──
  const done = (phase: string) => results[phase] !== undefined;
  if (!done("import")) {
    loads.import = loadAverage();
    const imported = await run(
      [
        "scripts/import/main.ts",
        file,
        "--format",
        "ndjson",
        "--origin",
        "scale.example/log",
        "--concurrency",
        values.concurrency as string,
      ],
      {
        LEDGER_URL: URL_,
        LEDGER_TOKEN: TOKEN,
      },
    );
    results.import = {
      concurrency: Number(values.concurrency),
      ms: imported.ms,
      seconds: imported.ms / 1000,
      eventsPerSecond: Math.round((N / imported.ms) * 1000),
      rssMb: imported.rssMb,
      summary: imported.stdout.trim(),
    };
    log(`import: ${imported.stdout.trim()}`);
    results.serverRssAfterImportMb = peakRss(serverPid);
    results.storeRssAfterImportMb = peakRss(storePid(serverPid));
    // The import's last answer is not the end of the work it caused: projections and the log
    // follow. The reads are measured once both have caught up (a listing waits for every
    // projection published; the checkpoint reaches every event), and how long that took is kept.
    const settling = performance.now();
    await (await fetch(`${URL_}/incidents?limit=1`)).arrayBuffer();
    for (let i = 0; i < 600; i += 1) {
      const size = Number((await (await fetch(`${URL_}/log/checkpoint`)).text()).split("\n")[1]);
      if (size >= N) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    results.settledAfterImportSeconds = Number(((performance.now() - settling) / 1000).toFixed(1));
    // Once settled, and after its peak was read: what of that peak was alive.
    results.serverLiveAfterImportMb = liveHeap(serverPid);
    savePartial();
  }
  const importMs =
    (results.import as { ms?: number; seconds: number }).ms ??
    (results.import as { seconds: number }).seconds * 1000;

  // The commit items as stored, a sample held in memory (at most 50,000 events' worth), written again raw.
  const sample: Record<string, AttributeValue>[][] = [];
  let sampled = 0;
  await scanAll(tables.events, 4, (items) => {
    for (const item of items) {
      if (sampled >= 50_000) return;
      sample.push([item]);
      sampled += item.events?.L?.length ?? 1;
    }
  });
  const items = sample.flat();
  if (!done("importBaseline")) {
    const rawTable = `scale-raw-${Date.now()}`;
    await db.send(
      new CreateTableCommand({
        TableName: rawTable,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "incidentId", AttributeType: "S" },
          { AttributeName: "version", AttributeType: "N" },
        ],
        KeySchema: [
          { AttributeName: "incidentId", KeyType: "HASH" },
          { AttributeName: "version", KeyType: "RANGE" },
        ],
      }),
    );
    const raw = await timed(async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: Number(values.concurrency) }, async () => {
          while (next < items.length) {
            const chunk = items.slice(next, next + 25);
            next += 25;
            let requests = chunk.map((Item) => ({ PutRequest: { Item } }));
            while (requests.length > 0) {
              const out = await db.send(
                new BatchWriteItemCommand({ RequestItems: { [rawTable]: requests } }),
              );
              requests = (out.UnprocessedItems?.[rawTable] ?? []) as typeof requests;
            }
          }
        }),
      );
    });
    const rawRate = Math.round((sampled / raw.ms) * 1000);
    results.importBaseline = {
      events: sampled,
      items: items.length,
      eventsPerSecond: rawRate,
      ratio: Number((((N / importMs) * 1000) / rawRate).toFixed(3)),
    };
    log(`raw BatchWriteItem: ${rawRate} events/s`);
    savePartial();
  }

  // ── Reads ──
  if (!done("reads")) {
    loads.reads = loadAverage();
    const ids = items.map((i) => i.incidentId?.S as string);
    const some = Array.from(
      { length: Number(values.reads) },
      (_, i) => ids[(i * 7919) % ids.length] as string,
    );
    const words = ["odesa", "hospital", "station", "kharkiv", "bridge", "market", "shelter", "convoy"];
    const speakers = ["Olena Kovalenko", "Pavlo Kovalenko", "Ivan Kovalenko", "Maria Kovalenko"];
    results.reads = {
      summary: await latencies(some.map((id) => `/incidents/${id}`)),
      incidentPage: await latencies(some.slice(0, 100).map((id) => `/view/${id}`)),
      listingPage: await latencies(Array.from({ length: 100 }, () => "/incidents?limit=20")),
      // The first page alone is whatever the newest incidents are (at a million, long ones):
      // the pages a reader walks after it, cursor by cursor, show how a page's cost grows.
      listingWalk: await latencies(await listingPaths(LISTING_WALK_PAGES, 4)),
      listingHtml: await latencies(Array.from({ length: 50 }, () => "/")),
      search: await latencies(
        Array.from({ length: 100 }, (_, i) => `/incidents?q=${words[i % words.length]}`),
      ),
      sourcePage: await latencies(
        Array.from(
          { length: 100 },
          (_, i) => `/sources/${encodeURIComponent(speakers[i % speakers.length] as string)}`,
        ),
      ),
      // At 10,000 events each speaker is named in 11–14 incidents, at a million in hundreds, so
      // the page above shows fewer at the smaller size. Ten a page shows as many at both.
      sourcePageTen: await latencies(
        Array.from(
          { length: 100 },
          (_, i) => `/sources/${encodeURIComponent(speakers[i % speakers.length] as string)}?limit=10`,
        ),
      ),
    };
    log(`reads: ${JSON.stringify(results.reads)}`);
    results.serverRssAfterReadsMb = peakRss(serverPid);
    savePartial();
  }
  // ── Exports vs a raw parallel Scan writing JSON lines ──
  const checkpoint = await (await fetch(`${URL_}/log/checkpoint`)).text();
  const treeSize = Number(checkpoint.split("\n")[1]);
  if (!done("exports")) {
    loads.exports = loadAverage();
    // As `curl -O` fetches an export (the README's way): uncompressed. A browser asks for gzip,
    // measured beside it ("gzip"), decompressed as it arrives.
    const exportOf = async (path: string, encoding: "identity" | "gzip" = "identity") => {
      const t = await timed(async () => {
        const r = await fetch(`${URL_}${path}`, { headers: { "accept-encoding": encoding } });
        let bytes = 0;
        for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
        return bytes;
      });
      return {
        bytes: t.value,
        seconds: t.ms / 1000,
        mbPerSecond: Number((t.value / 1e6 / (t.ms / 1000)).toFixed(2)),
      };
    };
    const rawScan = () =>
      timed(async () => {
        let bytes = 0;
        await scanAll(tables.events, 4, (page) => {
          for (const item of page) for (const e of item.events?.L ?? []) bytes += (e.S ?? "").length + 1;
        });
        return bytes;
      });
    // Three rounds, alternating (export, Scan, Scan, export …), and the median of each: the
    // machine is shared, and a single pass of each lands on whatever else ran then.
    const rounds: {
      nd: Awaited<ReturnType<typeof exportOf>>[];
      csv: typeof rounds.nd;
      scan: Awaited<ReturnType<typeof rawScan>>[];
    } = { nd: [], csv: [], scan: [] };
    for (let round = 0; round < 3; round++) {
      if (round % 2 === 0) {
        rounds.nd.push(await exportOf(`/export/events.ndjson?treeSize=${treeSize}`));
        rounds.csv.push(await exportOf(`/export/incidents.csv?treeSize=${treeSize}`));
        rounds.scan.push(await rawScan());
      } else {
        rounds.scan.push(await rawScan());
        rounds.csv.push(await exportOf(`/export/incidents.csv?treeSize=${treeSize}`));
        rounds.nd.push(await exportOf(`/export/events.ndjson?treeSize=${treeSize}`));
      }
    }
    const median = <T>(list: T[], by: (x: T) => number): T => [...list].sort((a, b) => by(a) - by(b))[1] as T;
    const ndjsonGzip = await exportOf(`/export/events.ndjson?treeSize=${treeSize}`, "gzip");
    const ndjson = median(rounds.nd, (x) => x.seconds);
    const csv = median(rounds.csv, (x) => x.seconds);
    const scan = median(rounds.scan, (x) => x.ms);
    const scanRate = scan.value / 1e6 / (scan.ms / 1000);
    // Context for incidents.csv, whose bytes are a row per incident, not the events: the same
    // Scan of the views table writing each stored summary as a JSON line (what a row is made of).
    const viewsScan = await timed(async () => {
      let bytes = 0;
      await scanAll(tables.views, 4, (page) => {
        for (const item of page) bytes += (item.summary?.S ?? "").length + (item.summary ? 1 : 0);
      });
      return bytes;
    });
    results.exports = {
      treeSize,
      eventsNdjson: { ...ndjson, ratio: Number((ndjson.mbPerSecond / scanRate).toFixed(3)) },
      eventsNdjsonGzip: { ...ndjsonGzip, ratio: Number((ndjsonGzip.mbPerSecond / scanRate).toFixed(3)) },
      incidentsCsv: {
        ...csv,
        ratio: Number((csv.mbPerSecond / scanRate).toFixed(3)),
        timeRatio: Number((scan.ms / 1000 / csv.seconds).toFixed(3)),
      },
      rawScan: { bytes: scan.value, seconds: scan.ms / 1000, mbPerSecond: Number(scanRate.toFixed(2)) },
      viewsScan: { bytes: viewsScan.value, seconds: viewsScan.ms / 1000 },
    };
    log(`exports: ${JSON.stringify(results.exports)}`);
    savePartial();
  }
  const rawScanMs = (results.exports as { rawScan: { seconds: number } }).rawScan.seconds * 1000;

  // ── The finding index as stored: its items and bytes, for the cost arithmetic in the docs ──
  let searchItems = 0;
  let searchBytes = 0;
  await scanAll(tables.search as string, 4, (page) => {
    for (const item of page) {
      searchItems += 1;
      searchBytes += JSON.stringify(item).length;
    }
  });
  results.searchIndex = { items: searchItems, approxBytes: searchBytes };

  // ── Verify vs SHA-256 of the same events and leaves ──
  loads.verify = loadAverage();
  const vkey = (await (await fetch(`${URL_}/log/vkey`)).text()).trim();
  const verified = await run(["scripts/verify/main.ts", "--url", URL_, "--vkey", vkey]);
  const exportFile = join(DIR, "export.ndjson");
  // Streamed to the file: at a million events the export is larger than a string may be.
  const download = await fetch(`${URL_}/export/events.ndjson?treeSize=${treeSize}`);
  await pipeline(Readable.fromWeb(download.body as never), createWriteStream(exportFile));
  const hashLoop = await timed(async () => {
    let n = 0;
    const lines = createInterface({
      input: createReadStream(exportFile),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of lines) {
      if (!line) continue;
      const e = JSON.parse(line) as Record<string, unknown>;
      const { hash, ...covered } = e;
      sha256Hex(canonicalJson(covered));
      const leaf = canonicalJson({ incidentId: e.incidentId, version: e.version, eventId: e.eventId, hash });
      // The same one-shot hashing the verifier uses: the loop is the floor of what it does.
      hashLeaf(Buffer.from(leaf));
      n += 1;
    }
    return n;
  });
  const hashRate = (hashLoop.value / hashLoop.ms) * 1000;
  const verifyRate = (treeSize / verified.ms) * 1000;
  results.verify = {
    ok: verified.code === 0,
    seconds: verified.ms / 1000,
    leavesPerSecond: Math.round(verifyRate),
    rssMb: verified.rssMb,
    sha256LoopPerSecond: Math.round(hashRate),
    ratio: Number((verifyRate / hashRate).toFixed(3)),
  };
  log(`verify: ${JSON.stringify(results.verify)}`);
  savePartial();

  // ── Rebuild into empty views and search tables vs a raw parallel Scan ──
  loads.rebuild = loadAverage();
  const rebuildTables = {
    ...tables,
    views: `scale-views-${Date.now()}`,
    search: `scale-search-${Date.now()}`,
  };
  await createTables(db, rebuildTables);
  const rebuilt = await run(["scripts/rebuild.ts"], {
    DYNAMO_PORT: String(DYNAMO_PORT),
    VIEWS_TABLE: rebuildTables.views,
    SEARCH_TABLE: rebuildTables.search,
  });
  const rebuildRate = (N / rebuilt.ms) * 1000;
  const scanEvents = (N / rawScanMs) * 1000;
  const rebuildReport = (() => {
    try {
      return JSON.parse(rebuilt.stdout.trim().split("\n").at(-1) ?? "{}") as { seconds?: number };
    } catch {
      return {};
    }
  })();
  results.rebuild = {
    ok: rebuilt.code === 0,
    seconds: rebuilt.ms / 1000,
    // The rebuild's own clock, without the process's start (module loading).
    reportedSeconds: rebuildReport.seconds ?? null,
    eventsPerSecond: Math.round(rebuildRate),
    rssMb: rebuilt.rssMb,
    rawScanEventsPerSecond: Math.round(scanEvents),
    ratio: Number((rebuildRate / scanEvents).toFixed(3)),
  };
  log(`rebuild: ${JSON.stringify(results.rebuild)}`);
  results.rssMb = {
    server: peakRss(serverPid),
    store: peakRss(storePid(serverPid)),
    import: (results.import as { rssMb: number | null }).rssMb,
    verify: verified.rssMb,
    rebuild: rebuilt.rssMb,
    runner: peakRss(process.pid),
  };
  // Since this run started (or resumed): without the table files mapped (see OwnMemory).
  results.ownMemoryMb = { server: ownMemory.peakMb(serverPid), store: ownMemory.peakMb(serverStorePid) };
  results.serverLiveAtEndMb = liveHeap(serverPid);
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("close", r));
  db.destroy();
}
results.finishedAt = new Date().toISOString();
results.loadAfter = loadAverage();
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, `${N}.json`), `${JSON.stringify(results, null, 2)}\n`);
rmSync(PARTIAL, { force: true });
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
process.exit(0);
