/**
 * Why a goal is missed, as found by profiling (`node --cpu-prof` with bench/profile/*; details
 * and the suggested changes are in docs/bench-section.md). Matched on row-id prefixes, first
 * match wins; a missed row with no match says "not yet explained". Keep these true to the code:
 * after a change, re-profile, edit, and `npm run bench -- --renote`.
 */
const PER_REQUEST =
  "an append costs 1.26× the bare route's CPU (+345 µs a request, bench/profile/cpu-per-request.ts), of which, measured apart: the sealed commit item (1.2 KB of JSON against the 0.5–0.7 KB body) through the SDK and the in-process store +142 µs a put, sealing included (item-cost.ts); reading the body by async iteration over the IncomingMessage (read-body.ts:15) +67 µs p50 against c.req.text() (body-read.ts); zod validation 10–17 µs; the rest is routing, two SHA-256 digests of the bearer token (events.ts:24 and :31) and the longer answer";

const CHAIN =
  "One incident is one hash chain (each event's hash covers the previous one), so appends to it take turns (per-incident lanes, event-store.ts:106) while the bare route's puts to distinct keys run side by side";

const USER_CALLS =
  "`npm start` runs three threads (functions/local/server.ts): the request thread (HTTP, the app, the SDK's client side of an append's 1 store call, 2 with a client eventId), the store thread (dynalite and LevelDB on DATA_DIR; the bare server keeps dynalite in memory) and the feed thread (the projector and the log sequencer, folding and sequencing the commits handed to them). Since views are group-committed (functions/store/grouped-view-store.ts: the views passes finish while writes are under way go out in one BatchWriteItem, two writes in flight at most; 25 lanes) and log passes start ≥ 100 ms apart, the feed thread makes 0.48 store calls an append under 16 writers without client eventIds and 0.65 with them (`tsx bench/profile/count-npm-start.ts 800 --many [--ids]`; 1.3–1.7 before, 3.4–5.0 before the write cut). The process's CPU by thread (from /proc, without a profiler: `tsx bench/profile/npm-start.ts w16-many-eventId 8 --no-prof`, quiet machine, 420 appends/s) is, per append: request thread 1.45 ms, store thread 0.91 ms, feed thread 0.71 ms, V8's helper threads 0.83 ms (JIT compilation and GC for three isolates), libuv's pool 0.20 ms (LevelDB) — 4.2 ms in all, against the bare server's whole request at ≈ 0.6 ms; every thread shares the machine's two cores with the load generator";

const OFF_THREAD =
  "So throughput follows CPU an append, and store calls are no longer most of it: the request thread's share alone (two SDK requests over loopback, HTTP, validation, sealing) is ≈ 2.4× the bare server's whole request, and the feed thread's fold, packing, summary JSON, hashing and signing are per commit however its writes are batched. What would meet 0.45×: at most ≈ 1.9 ms of CPU an append in all — no projection and no log on the same two cores as the appends (in AWS they are other Lambdas), and a store call far cheaper than an SDK request over loopback HTTP to a store on another thread (an in-thread binding to the store, which would no longer be the DynamoDB API the Lambdas speak, so the local server would stop testing that path). LevelDB's share stays, since every acknowledged write is on disk";

const REASONS: [prefix: string, reason: string][] = [
  [
    "long.project",
    "The goal rows use a history of the same breadth at every length (3 sources, 1 denial, 1 assessment, 1 retraction in the first 10 events): the state is then the same size from 1,000 events on, and what a cold projection does — one GetItem of the state, one Query of the events after it, the fold, one conditional put — does not depend on the length. A 10-event state is smaller (fewer chart marks, band steps and statements kept), so 1,000 may cost a little more than 10; 1,000 → 10,000 is the column that shows dependence on length. On the issue's siege the state grows with breadth (40 sources), see the context rows",
  ],
  [
    "long.past",
    "At 10 events there is no snapshot: the read is one Query of 5 events. From 100 events on it is a snapshot GetItem plus that Query, read at once; snapshots never change, so the reader keeps the last 64 it read and a repeated past read near one skips its read. bench/profile/long-past.ts (CPU per call, in-process): a cold snapshot read costs ≈ 2.5–3 ms whatever the length (1,000 and 10,000 alike), the fold of 5 events ≈ 0.2 ms; a first read near a snapshot therefore costs about 1.6× a 10-event read, a repeated one ≈ 1×",
  ],
  [
    "long.page",
    "The page of a 10-event incident draws 10 timeline events and charts of a few points; from about 1,000 events on it draws 50 timeline events and charts of 48 points (the bounds), so the page stops growing there: 1,000 → 10,000 events is flat within the machine's noise",
  ],
  [
    "user.w16.one",
    `${USER_CALLS}. One incident is one hash chain, so its appends take turns (per-incident lanes, event-store.ts), grouped into one commit item while they wait (group commit); commits arriving while the incident's projection runs become one follow-up pass (functions/local/projection-lanes.ts). ${OFF_THREAD}.`,
  ],
  [
    "user.w16.many",
    `${USER_CALLS}. Coalescing an incident's commits does little here (each of 200 incidents gets a few commits a second, so each commit is a pass of its own); grouping the views of many incidents into one batch write is what cut the feed thread's calls. ${OFF_THREAD}.`,
  ],
  [
    "user.w1",
    `${USER_CALLS}. With one writer an append is one put on the request thread and, per 10 ms lane window and 100 ms log pass, the feed thread's view write, run, records and checkpoint (0.9 store calls an append in all): the put waits in the store thread behind those, and the process's CPU an append is 3.3 ms (request thread 1.17, store 0.71, feed 0.62, V8's helpers 0.64) against the bare server's 0.87 ms. One writer waits for each answer, so each thread hop (request → store → LevelDB's pool and back) adds to every request's latency. ${OFF_THREAD}.`,
  ],
  [
    "user.r16",
    "A summary read is answered from the request thread's copy of the view (functions/local/view-cache.ts), replaced by the view each projection pass reports, after a wait for the incident's pending passes; a copy is read again after a second. Where this row misses, the bare server's GetItem was the one that got the cores (the archive's CPU a read is in the CPU row).",
  ],
  [
    "user.lag",
    `${USER_CALLS}. A poll is a summary GET that waits for its incident's pending pass — it hurries the lane, which takes the next free slot before the backlog (functions/local/projection-lanes.ts) — and is then answered from the view that pass reported, with no store call. What is left is that pass on a feed thread that shares the two cores with a saturated request thread and store thread (the fold, then its grouped view write behind those in flight, each queued in the one store thread behind the appends' puts), and the GET's own turn in a request thread serving 16 writers: see the median poll round trip in the detail. The feed thread keeps up without a growing backlog (the in-process rows). What would meet 50 ms is what would meet the throughput rows: a server not saturated by 16 writers. ${OFF_THREAD}.`,
  ],
  [
    "append.w16.one.eventId",
    `${CHAIN}; each turn is two sequential conditional writes (claim, then commit). Group commit — one commit item for every append waiting in the lane, their claims written in parallel — would turn the queue into one write.`,
  ],
  [
    "append.w16.one",
    `${CHAIN}. Group commit — one commit item for every append waiting in the lane — would turn the queue into one write.`,
  ],
  [
    "append.w1.one.eventId",
    `The claim write and the commit write are sequential by design (two writes is the floor: 2.13× the bare route's CPU per request); besides, ${PER_REQUEST}.`,
  ],
  [
    "append.w1.many.eventId",
    `The claim write and the commit write are sequential by design (two writes is the floor: 2.13× the bare route's CPU per request); besides, ${PER_REQUEST}.`,
  ],
  [
    "append.w16.many.eventId",
    "Two conditional writes per append (claim, then commit) against the bare route's one, in a process whose CPU is also the store's: throughput cannot pass ~0.5× by construction.",
  ],
  ["append.", `The archive's own work: ${PER_REQUEST}.`],
  [
    "read.summary",
    "A summary read costs the same CPU as the bare route (1.00×, cpu-per-request.ts): a miss here is scheduling noise on the shared machine.",
  ],
  [
    "lag.w16",
    "Here nothing reads, so no lane is hurried: each commit waits its incident's 10 ms window, then a pass (fold, packing), 25 incidents at once, whose view goes out in the next grouped BatchWriteItem once one of the two in flight ends. Under 16 writers over 500 incidents almost every commit is a pass of its own, and each batch write queues in the one store thread behind the appends' claim and commit puts and the log's writes; the lag is the window plus up to two such writes (p99 46–57 ms in alternating runs of the suite alone; 1.3–1.4 s before the write cut, 0.5–0.7 s before the views were grouped). Reads do not wait for it: a read that waits for an incident takes the next free lane (the headline lag rows). What would meet 50 ms: fewer or far cheaper store calls an append on the same cores (see the headline rows' explanation)",
  ],
  ["lag.", "The in-process projector shares the CPU with the appends and does 2–3 store calls per commit."],
  [
    "rebuild.views",
    "The rebuild reads every commit once, by a parallel Scan (0.6–0.7× the Query's time at 100 events an incident, rebuild.scan), hands each page to the fold thread (view-fold-thread.ts: parse, fold, summary JSON, gzip of views and snapshots) and writes what comes back 25 to a BatchWriteItem. CPU at the full size beside the Query in one process (bench/profile/rebuild-ab.ts, which runs this tree's rebuild against another checkout's, load 1–5): this thread 2,800–2,880 ms (the scan, the writes' client side and, in the benchmark, dynalite serving both) against the Query's 2,450–2,610; the fold thread 1,650–1,750; the whole process ≈ 6,100–6,400 (≈ 1,300 in V8's helper threads) against the Query's ≈ 3,000. So on two cores the rebuild takes at least half the process's CPU — ≈ 0.8× the Query's time at best, less wherever another process takes a core. Tried and not merged: the writes on the fold thread with a client of its own (this thread then at the Query's CPU, the fold thread at 2,130–2,300) measured 0.47–0.67× against 0.52–0.74× in the same alternating rounds, both threads waiting on each other. What would meet it: less CPU in all, not another split — less garbage in the fold and packing (what the helper threads and both heaps spend beyond the Query's)",
  ],
  [
    "bundle.size",
    "The API Lambda now carries only its own routes (functions/ledger-core.ts: events, views, the append, /health): the transparency log's routes, /feed, /export/..., /releases and /openapi.json are the data Lambda's (functions/lambda/data.ts), with the KMS client (≈ 27 KB) and the inlined document (≈ 70 KB); 453 KB vs 351 KB = 1.29× on a lightly loaded machine. What is left above the minimal bundle is the API's own: zod (≈ 35 KB, every body's schema), the domain (events/) and the stores. Should it creep above 1.3×: the bundle's metafile (bench/lib/bundling.ts keeps one) names the parts.",
  ],
  [
    "bundle.import",
    "A cold import is mostly compiling the module, so it follows the bundle's size: the same cuts apply.",
  ],
];

export function explain(id: string): string | undefined {
  return REASONS.find(([prefix]) => id.startsWith(prefix))?.[1];
}
