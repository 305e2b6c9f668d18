/**
 * Why a goal is missed, as found by profiling (`node --cpu-prof` with bench/profile/*; the
 * details and the suggested changes are in docs/bench-section.md). Matched on row-id prefixes,
 * first match wins; a missed row with no match says "not yet explained".
 */
const BODY =
  "read-body.ts reads the body through c.req.raw.body, so @hono/node-server builds a full WHATWG Request per POST (+90 µs p50 measured alone)";
const ITEM =
  "the commit item is ~1.1 KB against the raw route's 0.7 KB body (the sealed event adds version, times, writer, prevHash and hash; the item adds lastHash, lastRecordedAt, itemType and an eventIds list nothing reads), and the store's CPU is in this process";

const REASONS: [prefix: string, reason: string][] = [
  [
    "append.w16.one.eventId",
    "One incident is one hash chain: appends to it take turns (per-incident lanes), each turn two sequential conditional writes (claim, then commit), while the bare route's 16 puts run side by side. Group commit (one commit item for every append waiting in the lane) would lift this.",
  ],
  [
    "append.w16.one",
    "One incident is one hash chain: appends to it take turns (per-incident lanes) while the bare route's puts run side by side; plus the per-request costs below. Group commit (one commit item for every append waiting in the lane) would lift this.",
  ],
  [
    "append.w16.many.eventId",
    `Two conditional writes per append (claim, then commit) against one, on a process whose CPU is the store's too: throughput cannot pass ~0.5× by construction; on top, ${BODY}, and ${ITEM}.`,
  ],
  [
    "append.w1.one.eventId",
    `The claim write and the commit write are sequential by design (the floor is 2 writes); the rest is the same per-request cost as without an eventId: ${BODY}, and ${ITEM}.`,
  ],
  [
    "append.w1.many.eventId",
    `The claim write and the commit write are sequential by design (the floor is 2 writes); the rest is the same per-request cost as without an eventId: ${BODY}, and ${ITEM}.`,
  ],
  [
    "append.",
    `Per-request cost over the bare route (profile diff, 1 writer): ${BODY}; ${ITEM}; zod validation ≈ 17 µs and sealing (canonical JSON + SHA-256) ≈ 17 µs per event.`,
  ],
  [
    "read.summary",
    "getSummary (view-store.ts) JSON.parses the stored summary and the route c.json()s it back to text: ≈ 100 µs per read at 11 KB (the top two entries of the profile diff). Passing the stored text through removes both.",
  ],
  [
    "lag.w16",
    "16 writers saturate the two shared cores; the in-process projector gets a share of them and does about as much store work per commit as the append (a Query of up to 25 commit items, a claim put per server-made eventId, the view put whose summary is written twice: item and listing index). The lag is steady (~300 ms, no growing backlog). Measured what-ifs: no claim put per server-made id −40 %; Query from the view's version ≈ 0; per-incident feed instead of 100-record batches ≈ 0.",
  ],
  ["lag.", "The in-process projector shares the CPU with the appends and does 3–4 store calls per commit."],
  [
    "rebuild.views",
    "Per incident the rebuild does a consistent GetItem of a view that cannot exist yet (16 % of its time), the Query, the fold, and a view put of summary + packed state whose summary the listing index writes a second time (35 %); the raw side does only the Query. A rebuild path that starts from the empty state and writes views with BatchWriteItem (no index copy of the summary) would close most of it.",
  ],
  [
    "bundle.size",
    '`import { z } from "zod"` (events/schemas.ts:1, functions/http/openapi.ts:1) pulls zod\'s whole namespace object into the bundle, every locale included (264 KB of zod\'s 444 KB); `import * as z from "zod"` lets esbuild tree-shake it (API bundle 891 → 562 KB, measured). The dashboard pages (~45 KB) and zod\'s JSON-Schema code for the OpenAPI document are in the API bundle too.',
  ],
  [
    "bundle.import",
    "Cold import time follows bundle size (compiling the module is 31 % of it); with the zod namespace import alone the import drops from ~181 to ~147 ms (measured), the rest as for the size.",
  ],
];

export function explain(id: string): string | undefined {
  return REASONS.find(([prefix]) => id.startsWith(prefix))?.[1];
}
