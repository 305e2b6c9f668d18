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
  "`npm start` runs three threads (functions/local/server.ts): the request thread (HTTP, the app, the SDK's client side of an append's 1 store call, 2 with a client eventId: bench/profile/count-npm-start.ts), the store thread (dynalite and LevelDB on DATA_DIR; the bare server keeps dynalite in memory) and the feed thread (the projector's view put per incident pass, folding the commits the stream records carry, and the log sequencer's leaf-run, seq# and settled-size writes per pass, also from the commits handed to it: about 3.4 store calls a commit with one writer, 5.0 before either stopped reading the commits back; `tsx bench/profile/count-npm-start.ts 200` counts both threads). Profiled per thread under 16 writers · 200 incidents · eventId (bench/profile/npm-start.ts, analyze.ts lists each thread's busy time; load ~10): request 8.3 s, store 8.1 s (LevelDB — classic-level — half of it), feed 10.4 s (node core HTTP and @smithy/@aws-sdk nine tenths of it): the work the feed thread makes for the store thread (its calls, each a whole SDK request over loopback, plus LevelDB behind each) is now the bottleneck, not the request thread, which is idle a third of the time. The bare server does one in-memory store call a request on one thread";

const OFF_THREAD =
  "What would meet it: still fewer store calls per commit on the feed side — the projector and the sequencer no longer read the commits back (they fold and sequence what the records carry), so what is left is their writes: the view put, and the sequencer's run, seq# records and settled size per pass (functions/log/sequencer.ts), which a longer log-feed window or one item per pass would thin; LevelDB's share stays, since the archive keeps every acknowledged write on disk";

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
    `${USER_CALLS}. Coalescing projections does little here (each of 200 incidents gets well under one write a second, so each commit is a pass of its own). ${OFF_THREAD}.`,
  ],
  [
    "user.w1",
    `${USER_CALLS}. With one writer the request thread makes one put an append and is idle three quarters of the time (w1-one profile, load ~10: p50 10 ms against the bare server's 1–4 ms): the put waits in the store thread behind the feed thread's calls for the previous append (a projection and a log pass, ~5 calls). ${OFF_THREAD}.`,
  ],
  [
    "user.r16",
    "A summary read is one GetItem of the stored view, sent as the stored JSON text (no parse, no re-serialisation; the ETag is the version, no hashing), after a wait for the incident's pending projections, which the feed thread reports without a round trip when none are pending. With dynalite and the projector off the request thread, a quick run at load ~5 gave 0.88× (CPU a read 1.45×; 1.01–1.33× at load ~10); the earlier 0.40× came from the read load following four write loads in the same process, whose projection and log backlog shared the request thread. Not profiled further: the rest is the request thread's HTTP, Hono and SDK client per read, against the bare server's same GetItem.",
  ],
  [
    "user.lag",
    `${USER_CALLS}. Projection runs per incident lane (functions/local/projection-lanes.ts: 8 incidents at once, commits waiting for a running pass joined into the next), so the lag is the feed thread's queue: at 16 writers it makes ~3–4 store calls a commit through the SDK (no read of the commits: it folds those the records carry), as many as the request thread and store thread together can serve. Measured from outside through polls that are themselves slow on the loaded machine (an upper bound). ${OFF_THREAD}.`,
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
    "16 writers saturate the two shared cores and the in-process projector gets a share of them, doing about as much store work per commit as the append: a Query that re-reads up to 24 already-folded commits (event-store.ts:378 starts the window MAX_BATCH back, though a view's version is always a commit boundary) and a view put whose whole summary the listing index writes a second time; records also wait behind the 100-record batch in flight (local-stream.ts:7). The lag is steady, not a growing backlog.",
  ],
  ["lag.", "The in-process projector shares the CPU with the appends and does 2–3 store calls per commit."],
  [
    "rebuild.views",
    "The rebuild reads every commit once, by a parallel Scan (0.6–0.7× the Query's time at 100 events an incident, rebuild.scan), hands each page to the fold thread (view-fold-thread.ts: parse, fold, summary JSON, gzip of views and snapshots, ≈0.8× of the Query's time on its own core) and writes what comes back 25 to a BatchWriteItem (+≈0.2–0.4×, the 22 KB summary through the SDK's character-by-character JSON writer; the listing index no longer copies it). So this thread does the scan, the writes and, in the benchmark, the store itself: 1.1–1.2× the Query's time measured under load 3–4 (bench/profile/rebuild-phases.ts, last two lines). Where it misses, the second core was busy (the fold thread then waits for it: compare the phases' thread line with `uptime`), or no thread started (the log's `foldedOn`, a bundle without esbuild, folds in this thread: ≈0.7×). Left to try: the writes on the fold thread too, with a client of its own, so that this thread keeps only the scan",
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
