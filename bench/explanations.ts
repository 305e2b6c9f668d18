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
  "`npm start` is one thread doing the HTTP server, the app, the in-process projector and dynalite; the bare server does one store call a request. Counted (bench/profile/count-calls.ts): an append without eventId costs 3 store calls (commit put, then the projector's Query and view put), with a client eventId 4 (the claim first). Every store call is a whole DynamoDB request inside that thread: the SDK serialises and signs it, sends it over loopback HTTP, dynalite parses and answers it, and with DATA_DIR set (npm start always sets one; the bare server keeps dynalite in memory) LevelDB writes it to disk. Profiled under the 16-writer load (bench/profile/npm-start.ts, then analyze.ts): node core (HTTP both ways) 22 % of the samples, @smithy/@aws-sdk 20 %, LevelDB (classic-level, abstract-level) 9 %, dynalite 7 %, the archive's own code under 5 %. So the ratio follows the count of store calls on the one thread";

const OFF_THREAD =
  "What would meet it: run dynalite and the projector in a worker thread (the machine has two cores and the bare server uses one): the request thread then keeps HTTP, the app and the SDK's client side of the 1–2 calls an append needs, and projection stops competing with appends; moving only the projector is not enough, since dynalite would still serve its calls on the request thread";

const REASONS: [prefix: string, reason: string][] = [
  [
    "long.project",
    "The work follows what the view holds, not the length: per (category, source) the latest reports and chart points, the live denials, the retracted ids. At 10 events a view holds a few sources (state 6 KB, summary 3.7 KB); from about 1,000 events on all 40 sources of the bench's siege are in it (state 113–173 KB, gzip 12–19 KB; summary 25–33 KB). bench/profile/long-projection.ts: reading the state 2.7 → 6.7 → 10.7 ms, the conditional put of summary + state (the listing index copies the summary) 8.2 → 11.6 → 12.2 ms, the fold itself well under a millisecond. From 1,000 to 10,000 events it grows with the denials and retractions the summary lists in full (0.2 % and 1 % of the events here)",
  ],
  [
    "long.past",
    "A past view reads the snapshot below (the bounded state: 6 KB at 10 events, 113–173 KB once all 40 sources have reported) and folds the events after it; at 10 events there is no snapshot and 5 events to fold. The cost is that of the state's size, which the sources and categories bound, not the incident's length",
  ],
  [
    "long.page",
    "The page of a 10-event incident draws 10 timeline events and charts of a few points; from about 1,000 events on it draws 50 timeline events and charts of 48 points (the bounds), so the page stops growing there: 1,000 → 10,000 events is flat within the machine's noise",
  ],
  [
    "user.w16.one",
    `${USER_CALLS}. Besides, one incident is one hash chain, so its appends take turns (per-incident lanes, event-store.ts) with two sequential writes each, and the projector re-projects the incident after every commit. What would meet it: group commit (the appends waiting in the lane become one commit item, their claims written in parallel) and coalescing projections of an incident being written to (one Query and one view put for every commit waiting), then the worker thread below. ${OFF_THREAD}.`,
  ],
  [
    "user.w16.many",
    `${USER_CALLS}: 4 calls against 1 bounds the ratio near 0.25–0.3×; two writes (the floor with a client eventId) would allow ~0.5×. ${OFF_THREAD}; coalescing projections does little here (each of 200 incidents gets ~1–2 writes a second).`,
  ],
  [
    "user.w1",
    `${USER_CALLS}: with one writer the commit put and the projection of the previous append share the thread, so each append pays ~3 store calls against the bare server's 1. ${OFF_THREAD}; that would leave one put (plus the request) on the request thread, near the 0.6× goal.`,
  ],
  [
    "user.r16",
    "Not yet profiled apart. A summary read is one GetItem of the stored view, as the bare server's (plus a wait for the incident's pending projection, none without writes); in a quick run at load ~5 it was 1.06× (CPU 1.26×), in the full runs on the busy machine 0.23–0.41× with 2.6–5.2× the CPU a read. Suspects: the read load follows four write loads in the same npm start process, whose disk-backed dynalite (LevelDB compaction) and projector catch-up may still be working; next step: bench/profile/npm-start.ts with the read load on a fresh process.",
  ],
  [
    "user.lag",
    `Sixteen writers saturate the one thread, and the projector's Query and view put for each commit queue behind the appends' store calls in the same event loop (records also wait behind the local stream's 100-record batch in flight); the in-process rows show the same at ~300–400 ms. ${OFF_THREAD}. The projector then has a core of its own, and coalescing projections per incident (one pass for every commit waiting) bounds its queue.`,
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
    "The rebuild reads every commit once, by a parallel Scan (0.6–0.7× the Query's time at 100 events an incident, rebuild.scan), then does what the raw side does not: parses each event (+0.01–0.07×), folds it (+≈0.4× with the garbage it makes: a third of the extra time is GC), packs each view and the snapshot taken at every 100th version (summary JSON, state JSON, gzip: +≈0.1×), and writes them 25 to a BatchWriteItem (+≈0.5×: a 22 KB summary that the listing index stores a second time, through the SDK's character-by-character JSON writer; bench/profile/rebuild-phases.ts). At 50 events an incident (no snapshot, smaller summaries) the same rebuild measures ≈0.97×. Left to close it: a listing index that does not copy the whole summary (one summary write a view, docs/scaling.md), or the parse and fold on a second thread beside the store's.",
  ],
  [
    "bundle.size",
    "The API bundle carries the dashboard pages (ledger.ts:46 mounts them by default, ≈ 37 KB) and builds the OpenAPI document from the schemas at run time (openapi.ts:30, z.toJSONSchema: ≈ 28 KB with zod's JSON-Schema code). Measured: without the pages 466 KB (1.34×); generating openapi.json at build time as well gives ≈ 438 KB (1.26×).",
  ],
  [
    "bundle.import",
    "A cold import is mostly compiling the module (31 % of it), so it follows the bundle's size: the same two cuts apply.",
  ],
];

export function explain(id: string): string | undefined {
  return REASONS.find(([prefix]) => id.startsWith(prefix))?.[1];
}
