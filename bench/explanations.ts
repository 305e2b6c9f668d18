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
  "`npm start` runs three threads (functions/local/server.ts): the request thread (HTTP, the app, the SDK's client side of an append's 1 store call, 2 with a client eventId), the store thread (dynalite and LevelDB on DATA_DIR; the bare server keeps dynalite in memory) and the feed thread (the projector and the log sequencer, folding and sequencing the commits handed to them). Since the write cut (projection lanes that wait 10 ms outside their slots, log passes at least 30 ms apart, seq# records 25 to a batch write, the settled size per tile or burst, each stored item decoded and chain-checked once, no SigV4 on loopback) the feed thread makes 1.3 store calls an append under 16 writers without client eventIds and 1.7 with them (`tsx bench/profile/count-npm-start.ts 800 --many [--ids]`; it made 3.4–5.0 before). A store call costs about the same CPU whoever makes it — the SDK's client side and dynalite's server side over loopback, ≈ 0.96 ms together for a 2 KB put in memory (bench/profile/sdk-signing.ts), more with LevelDB behind it — and every thread shares the machine's two cores with the load generator";

const OFF_THREAD =
  "So throughput follows store calls an append: with a client eventId 2 on the request thread + 1.7 on the feed thread ≈ 3.7 against the bare server's 1, which puts the ceiling near 0.27× — as measured. What would meet it: at most ~2.2 calls an append in all, i.e. no view write on the append's CPU (in AWS there is none: the projector is its own Lambda) or a store call much cheaper than an SDK request over loopback HTTP (an in-thread binding to the store, which would no longer be the DynamoDB API the Lambdas speak, so the local server would stop testing that path). LevelDB's share stays, since every acknowledged write is on disk";

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
    `${USER_CALLS}. With one writer an append is one put on the request thread and, per 10 ms lane window and 30 ms log pass, the feed thread's view put, run, records and checkpoint: the put waits in the store thread behind those, and the CPU a request is 3.4× the bare server's. ${OFF_THREAD}.`,
  ],
  [
    "user.r16",
    "A summary read is one GetItem of the stored view, sent as the stored JSON text (no parse, no re-serialisation; the ETag is the version, no hashing), after a wait for the incident's pending projections, which the feed thread reports without a round trip when none are pending. With dynalite and the projector off the request thread, a quick run at load ~5 gave 0.88× (CPU a read 1.45×; 1.01–1.33× at load ~10); the earlier 0.40× came from the read load following four write loads in the same process, whose projection and log backlog shared the request thread. Not profiled further: the rest is the request thread's HTTP, Hono and SDK client per read, against the bare server's same GetItem.",
  ],
  [
    "user.lag",
    `${USER_CALLS}. A read that waits for an incident cuts its lane's window and takes the next free lane before the backlog (functions/local/projection-lanes.ts), so what a poll sees is one pass behind at most; the rest of the figure is the poll itself, a summary GET answered by a server saturated by 16 writers (see the detail's lower bounds). The feed thread keeps up without a growing backlog (the in-process rows). ${OFF_THREAD}.`,
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
    "Here nothing reads, so no lane is hurried: each commit waits its incident's 10 ms window, then a pass (fold, one conditional view put), 8 incidents at once. Under 16 writers over 200 incidents almost every commit is a pass of its own (an incident rarely gets two commits within a window), and each pass's put queues in the one store thread behind the appends' claim and commit puts and the log's writes; the lag is that queue (before the write cut, p99 1.3–1.4 s; now about a third of it). Reads do not wait for it: a read that waits for an incident takes the next free lane (the headline lag rows). What would meet 50 ms: a store call far cheaper than an SDK request over loopback, or fewer of them an append (see the headline rows' explanation)",
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
