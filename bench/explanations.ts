/**
 * Why a goal is missed, as found by profiling (`node --cpu-prof` with bench/profile/*; details
 * and the suggested changes are in docs/bench-section.md). Matched on row-id prefixes, first
 * match wins; a missed row with no match says "not yet explained". Keep these true to the code:
 * after a change, re-profile, edit, and `npm run bench -- --renote`.
 */
const PER_REQUEST =
  "what is left per request (profile diff against the bare route) is the archive's own work: zod validation (≈ 20 µs), sealing the event into the chain (canonical JSON + SHA-256, ≈ 17 µs), a 1.0 KB commit item against the bare route's 0.7 KB body through the SDK and the in-process store, and a longer answer";

const CHAIN =
  "One incident is one hash chain (each event's hash covers the previous one), so appends to it take turns (per-incident lanes, event-store.ts:104) while the bare route's puts to distinct keys run side by side";

const REASONS: [prefix: string, reason: string][] = [
  [
    "append.w16.one.eventId",
    `${CHAIN}; each turn is two sequential conditional writes (claim, then commit). Group commit — one commit item for every append waiting in the lane, their claims written in parallel — would turn the queue into one write.`,
  ],
  [
    "append.w16.one",
    `${CHAIN}. Group commit — one commit item for every append waiting in the lane — would turn the queue into one write.`,
  ],
  [
    "append.w16.many.eventId",
    "Two conditional writes per append (claim, then commit) against the bare route's one, in a process whose CPU is also the store's: throughput cannot pass ~0.5× by construction, and the latency of a saturated process follows its throughput.",
  ],
  [
    "append.w1.one.eventId",
    `The claim write and the commit write are sequential by design (two writes is the floor); besides, ${PER_REQUEST}. This row varies most between runs on the shared machine (1.62× p50 in the full run before).`,
  ],
  [
    "append.w1.many.eventId",
    `The claim write and the commit write are sequential by design (two writes is the floor); besides, ${PER_REQUEST}.`,
  ],
  [
    "append.",
    `Within 5 % of the goal at p50: ${PER_REQUEST}. p99 on a shared 2-core machine is noise-bound.`,
  ],
  [
    "read.summary",
    "Since the summary goes out as its stored text (cccd81d), a summary read is one GetItem plus routing; what is left is within the run-to-run noise of this machine (p50 1.04×, met).",
  ],
  [
    "lag.w16",
    "16 writers saturate the two shared cores; the in-process projector gets a share of them and does about as much store work per commit as the append: a Query of up to 25 commit items (event-store.ts:349 starts 24 commits back), a claim put per server-made eventId (projector.ts:41), and the view put whose whole summary the listing index writes a second time. The lag is steady (~300 ms, no growing backlog). Measured what-ifs: no claim put per server-made id −40 %; Query from the view's version ≈ 0; a per-incident feed instead of 100-record batches ≈ 0.",
  ],
  ["lag.", "The in-process projector shares the CPU with the appends and does 3–4 store calls per commit."],
  [
    "rebuild.views",
    "Per incident the rebuild does a consistent GetItem of a view that cannot exist yet (16 % of its time, projector.ts:30), the Query, the fold, and a view put of summary + packed state whose summary the listing index writes a second time (35 %); the raw side does only the Query. A rebuild path that starts from the empty state and writes views with BatchWriteItem would close most of it.",
  ],
  [
    "bundle.size",
    "After zod/mini (5571340) the API bundle still carries the dashboard pages (ledger.ts:48 mounts them by default; ≈ 37 KB) and the OpenAPI document built from the schemas at run time (openapi.ts + zod's JSON-Schema code ≈ 28 KB). Measured: without the pages 466 KB (1.34×); generating openapi.json at build time as well would give ≈ 438 KB (1.26×).",
  ],
  [
    "bundle.import",
    "A cold import is mostly compiling the module (31 % of it), so it follows the bundle's size; the same two cuts apply.",
  ],
];

export function explain(id: string): string | undefined {
  return REASONS.find(([prefix]) => id.startsWith(prefix))?.[1];
}
