import { performance } from "node:perf_hooks";
import type { Envelope } from "../events/schemas.js";
import { type StoredEvent, sealEvents } from "../events/stored-event.js";
import { summarize } from "../events/summarize.js";
import { fold } from "../events/summary.js";
import { startLocalServer } from "../functions/local/server.js";
import { silentLogger } from "../functions/logger.js";

/**
 * Coding for research (issue 23), measured:
 * - projection of one commit (the fold of one event onto the bounded state, and its summary)
 *   and the summary read over HTTP, on incidents of 10, 1,000 and 10,000 events carrying the
 *   new fields (precision, revisions, grades, attributions, links, assessed reports): the
 *   ratio 10,000 / 1,000 must stay near 1;
 * - ucdp-ged.csv and acled.csv against incidents.csv at the same tree size, in the same run.
 *
 * `npx tsx bench/coding.ts [--lengths 10,1000,10000] [--incidents 10000] [--reads 200]`.
 * Defaults are the sizes; pass small ones for a quick look (the full run is the lead's).
 */
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const LENGTHS = arg("lengths", "10,1000,10000").split(",").map(Number);
const INCIDENTS = Number(arg("incidents", "10000"));
const READS = Number(arg("reads", "200"));
const TOKEN = "bench-coding-token-0123456789";
const EDITORS = { publisher: "incident-ledger" };
const AP = { publisher: "Associated Press" };

/** The i-th event of a coded incident: reports by 5 sources of 2 publishers, assessed, revised, graded, linked. */
function codedEvent(i: number, other: string): Envelope {
  const source = i % 3 === 0 ? { publisher: "Reuters" } : AP;
  const attributedTo = { name: `source-${i % 5}` };
  switch (i % 10) {
    case 0:
      return {
        type: "IncidentRevised",
        source: EDITORS,
        attributedTo,
        data: { title: `Title ${i}`, timePrecision: "day" },
      } as Envelope;
    case 1:
      return {
        type: "IncidentGraded",
        source: EDITORS,
        attributedTo,
        data: { scale: "ledger", grade: "corroborated" },
      } as Envelope;
    case 2:
      return {
        type: "AttributionAssessed",
        source: EDITORS,
        attributedTo,
        data: { perpetrator: { name: `group-${i % 7}` }, certainty: "medium" },
      } as Envelope;
    case 3:
      return {
        type: "IncidentsLinked",
        source: EDITORS,
        attributedTo,
        data: { otherIncidentId: other, relation: i % 20 === 3 ? "related" : "same-event" },
      } as Envelope;
    case 4:
      return {
        type: "StatementMade",
        source,
        attributedTo,
        data: { quote: `statement ${i}`, stance: "condemns" },
      } as Envelope;
    default:
      return {
        type: "CasualtiesReported",
        source,
        attributedTo,
        data: {
          figures: {
            killed: { value: 10 + (i % 40), qualifier: i % 2 ? "exact" : "at-least" },
            injured: { qualifier: "dozens" },
          },
        },
      } as Envelope;
  }
}

const opening = (id: string): Envelope =>
  ({
    type: "IncidentOpened",
    source: AP,
    data: {
      title: `Incident ${id}`,
      kind: "shelling",
      location: { name: "Somewhere", country: "UA", precision: "adm2", lat: 48.5, lon: 37.5 },
      occurredOn: "2022-04-08",
      timePrecision: "week",
    },
  }) as Envelope;

function seal(id: string, envelopes: Envelope[]): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const e of envelopes) {
    const last = out[out.length - 1];
    const head = last ? { version: last.version, hash: last.hash, recordedAt: last.recordedAt } : undefined;
    out.push(
      ...sealEvents(head ?? { version: 0, hash: "0".repeat(64), recordedAt: null }, [e], {
        incidentId: id,
        recordedBy: "bench",
        now: new Date(Date.UTC(2026, 0, 1) + out.length * 1000).toISOString(),
        newEventId: (v) => `bench-${v}`,
      }),
    );
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Projection of one commit, pure: one event folded onto the state at N, and its summary. */
function projectionAt(n: number): number {
  const events = seal("bench-coded", [
    opening("bench-coded"),
    ...Array.from({ length: n }, (_, i) => codedEvent(i, "bench-other")),
  ]);
  const state = fold("bench-coded", events.slice(0, -1));
  const last = events[events.length - 1] as StoredEvent;
  const times: number[] = [];
  for (let r = 0; r < 200; r++) {
    const t = performance.now();
    // The last event is a report, which needs nothing read back: no history is passed, as the
    // projector passes none (it answers a step's needs from the store, and this step has none).
    summarize(fold("bench-coded", [last], state));
    times.push(performance.now() - t);
  }
  return median(times);
}

const server = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  token: TOKEN,
  log: silentLogger,
  writer: "bench",
});
const post = async (id: string, events: Envelope[]) => {
  const answer = await fetch(`${server.url}/incidents/${id}/events`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ events }),
  });
  if (answer.status !== 201) throw new Error(`${id}: ${answer.status} ${await answer.text()}`);
};
const timed = async (path: string) => {
  const t = performance.now();
  const answer = await fetch(`${server.url}${path}`);
  await answer.arrayBuffer();
  return performance.now() - t;
};

try {
  console.log("| events | projection of one commit (fold + summary, ms p50) | summary read GET (ms p50) |");
  console.log("| ---: | ---: | ---: |");
  await post("bench-other", [opening("bench-other")]);
  const byLength: Record<number, { project: number; read: number }> = {};
  for (const n of LENGTHS) {
    const id = `bench-coded-${n}`;
    const all = [opening(id), ...Array.from({ length: n - 1 }, (_, i) => codedEvent(i, "bench-other"))];
    for (let i = 0; i < all.length; i += 25) await post(id, all.slice(i, i + 25));
    await server.stream.idle();
    const reads: number[] = [];
    for (let r = 0; r < READS; r++) reads.push(await timed(`/incidents/${id}`));
    byLength[n] = { project: projectionAt(n), read: median(reads) };
    console.log(`| ${n} | ${byLength[n].project.toFixed(3)} | ${byLength[n].read.toFixed(3)} |`);
  }
  const [, mid, top] = LENGTHS;
  if (mid && top && byLength[mid] && byLength[top])
    console.log(
      `\nratio ${top}/${mid}: projection ${(byLength[top].project / byLength[mid].project).toFixed(2)}, read ${(byLength[top].read / byLength[mid].read).toFixed(2)}`,
    );

  for (let i = 0; i < INCIDENTS; i += 1) {
    const id = `bench-export-${String(i).padStart(6, "0")}`;
    await post(id, [
      opening(id),
      codedEvent(5, "bench-other"),
      codedEvent(6, "bench-other"),
      codedEvent(2, "bench-other"),
      codedEvent(0, "bench-other"),
    ]);
  }
  await server.stream.idle();
  // The exports are cut at a signed checkpoint: wait for one that holds every event.
  const total = LENGTHS.reduce((a, n) => a + n, 0) + 1 + INCIDENTS * 5;
  for (;;) {
    const checkpoint = await server.ledger.logStore.latestCheckpoint();
    if (checkpoint && checkpoint.size >= total) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`\n| export at ${INCIDENTS} incidents (+${LENGTHS.length + 1}) | ms | × incidents.csv |`);
  console.log("| --- | ---: | ---: |");
  const base: number[] = [];
  const runs: Record<string, number[]> = { "incidents.csv": base, "ucdp-ged.csv": [], "acled.csv": [] };
  // One warm-up pass of each (the first export reads every summary from a cold store), then three.
  for (const name of Object.keys(runs)) await timed(`/export/${name}?treeSize=${total}`);
  for (let r = 0; r < 3; r++)
    for (const name of Object.keys(runs))
      (runs[name] as number[]).push(await timed(`/export/${name}?treeSize=${total}`));
  for (const [name, times] of Object.entries(runs))
    console.log(`| ${name} | ${median(times).toFixed(1)} | ${(median(times) / median(base)).toFixed(2)} |`);
} finally {
  await server.close();
}
