import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChildProcessServer,
  startChildServer,
  startNodeProcess,
} from "../../test/support/child-server.js";
import { openedEnvelope, reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { fromRoot } from "../lib/paths.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row, valueGoal } from "../lib/row.js";
import type { Suite } from "../lib/suite.js";
import type { LoadResult, LoadSpec } from "../user/load-generator.js";
import { meter, runScript } from "../user/processes.js";

const TOKEN = "bench-user-token-0123456789abcdef";
const GROUP =
  "`npm start` as a user meets it: its own process vs a bare Hono + dynalite server in its own, autocannon in a third";
const BASELINE =
  "bare server process: Hono + @hono/node-server + in-process dynalite, one conditional PutItem a request";
/** The local server stays usable: it keeps at least this share of a bare server's throughput. */
const USABLE = 0.2;

interface Load {
  key: string;
  title: string;
  connections: number;
  eventIds: boolean;
}

const LOADS: Load[] = [
  { key: "w1.one.noEventId", title: "1 writer · one incident · no eventId", connections: 1, eventIds: false },
  {
    key: "w16.one.eventId",
    title: "16 writers · one incident · client eventId",
    connections: 16,
    eventIds: true,
  },
];

const GENERATOR = fromRoot("bench/user/load-generator.ts");

/**
 * `npm start` (functions/local/main.ts in its own process, fresh DATA_DIR) against
 * bench/user/bare-server.ts in another, loaded by autocannon from a third. Each load runs
 * alternately on each side (order swapped every round), medians reported; between runs both
 * servers are left to go quiet (the projection catching up belongs to no run). Then, on the
 * archive alone: a summary read with `minVersion` right after each acknowledged append.
 */
export const userHeadline: Suite = {
  name: "User headline",
  steps: (s) => 1 + LOADS.length * (1 + 2 * s.userRounds) + 1,
  async run(ctx) {
    const { sizes, progress } = ctx;
    const dataDir = mkdtempSync(join(tmpdir(), "ledger-bench-user-"));
    progress.note("starting `npm start` and the bare server");
    let archive: ChildProcessServer | undefined;
    let bare: ChildProcessServer | undefined;
    try {
      archive = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN, LOG_LEVEL: "warn" });
      bare = await startNodeProcess(["bench/user/bare-server.ts"], { PORT: "0" }, /listening (http:\/\/\S+)/);
      const sides = { archive, bare };
      const meters = { archive: meter(archive.pid), bare: meter(bare.pid) };
      const quiet = () => Promise.all([meters.archive.quiet(), meters.bare.quiet()]);
      const incidents = Object.fromEntries(
        LOADS.map((l) => [l.key, `user-one-${l.key.replaceAll(".", "-").toLowerCase()}`]),
      );
      await open(archive.url, Object.values(incidents));
      progress.step("servers up, incidents opened");

      const rows: Row[] = [];
      for (const load of LOADS) {
        const spec = (side: "archive" | "bare", tag: string, seconds: number): LoadSpec => ({
          url: sides[side].url,
          connections: load.connections,
          seconds,
          kind: "append",
          incidents: [incidents[load.key] as string],
          token: TOKEN,
          ...(load.eventIds ? { eventIdPrefix: `${load.key.replaceAll(".", "-")}-${side}-${tag}` } : {}),
        });
        const generate = async (side: "archive" | "bare", tag: string, seconds: number) => {
          const result = await runGenerator(spec(side, tag, seconds));
          await quiet();
          return result;
        };
        progress.note(`${load.title}: warming both`);
        await generate("archive", "warm", sizes.userWarmSeconds);
        await generate("bare", "warm", sizes.userWarmSeconds);
        progress.step(`${load.title}: warmed both`);
        const runs = { archive: [] as LoadResult[], bare: [] as LoadResult[] };
        for (let round = 0; round < sizes.userRounds; round++) {
          const order = round % 2 === 0 ? (["archive", "bare"] as const) : (["bare", "archive"] as const);
          for (const side of order) {
            progress.note(
              `${load.title}: ${side}, round ${round + 1}/${sizes.userRounds} (${sizes.userSeconds} s)`,
            );
            const result = await generate(side, `r${round}`, sizes.userSeconds);
            runs[side].push(result);
            progress.step(`${load.title}: ${side} ${Math.round(result.throughput)}/s, p50 ${result.p50} ms`);
          }
        }
        const a = summary(runs.archive);
        const b = summary(runs.bare);
        const detail = `${sizes.userRounds} rounds of ${sizes.userSeconds} s each side; per round archive ${runs.archive.map((r) => Math.round(r.throughput)).join(", ")}/s, bare ${runs.bare.map((r) => Math.round(r.throughput)).join(", ")}/s.`;
        const common = { group: GROUP, baselineName: BASELINE, detail };
        const answered = runs.archive.reduce((n, r) => n + r.count + r.serverErrors, 0);
        rows.push(
          row({
            ...common,
            id: `user.${load.key}.throughput`,
            title: `${load.title} — throughput`,
            unit: "req/s",
            subject: a.throughput,
            baseline: b.throughput,
            goal: ratioGoal(">=", USABLE),
          }),
          row({
            ...common,
            id: `user.${load.key}.p50`,
            title: `${load.title} — p50`,
            unit: "ms",
            subject: a.p50,
            baseline: b.p50,
            goal: context("context: latency at this load"),
          }),
          row({
            group: GROUP,
            id: `user.${load.key}.5xx`,
            title: `${load.title} — 5xx answers`,
            unit: "answers",
            subject: runs.archive.reduce((n, r) => n + r.serverErrors, 0),
            baseline: answered,
            baselineName: "requests answered, archive side",
            goal: valueGoal("<=", 0),
          }),
        );
      }

      progress.note("read-after-write with minVersion");
      rows.push(
        await readAfterWrite(archive.url, incidents["w16.one.eventId"] as string, sizes.userReadAfterWrite),
      );
      progress.step("read-after-write with minVersion");
      return rows;
    } finally {
      await Promise.all([archive?.stop(), bare?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

/**
 * Each acknowledged append, then at once a summary read with `minVersion` = its version, by
 * 16 writers at a time: the read must show the write (CONTRACT.md: read-your-writes).
 */
async function readAfterWrite(url: string, incidentId: string, total: number): Promise<Row> {
  const client = httpClient(url, 16);
  let shown = 0;
  let next = 0;
  try {
    const writer = async () => {
      while (next < total) {
        const i = next++;
        const posted = expectStatus(
          await client.send("POST", `/incidents/${incidentId}/events`, JSON.stringify(reportEnvelope(i)), {
            authorization: `Bearer ${TOKEN}`,
          }),
          201,
        );
        const version = (JSON.parse(posted.text) as { version: number }).version;
        const read = expectStatus(
          await client.send("GET", `/incidents/${incidentId}?minVersion=${version}`),
          200,
        );
        if ((JSON.parse(read.text) as { version: number }).version >= version) shown += 1;
      }
    };
    await Promise.all(Array.from({ length: 16 }, writer));
  } finally {
    client.close();
  }
  return row({
    group: GROUP,
    id: "user.readAfterWrite",
    title: "16 writers · one incident — summary read with minVersion right after each append shows it",
    unit: "reads",
    subject: shown,
    baseline: total,
    baselineName: "acknowledged appends",
    goal: ratioGoal(">=", 1),
  });
}

async function runGenerator(spec: LoadSpec): Promise<LoadResult> {
  const out = await runScript(GENERATOR, [JSON.stringify(spec)]);
  return JSON.parse(out.trim().split("\n").pop() as string) as LoadResult;
}

/** Medians over rounds (of two rounds, their mean). */
function summary(runs: LoadResult[]) {
  const mid = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const h = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? (s[h] as number) : ((s[h - 1] as number) + (s[h] as number)) / 2;
  };
  return { throughput: mid(runs.map((r) => r.throughput)), p50: mid(runs.map((r) => r.p50)) };
}

/** Opens the incidents the writes go to, through HTTP as a client would. */
async function open(url: string, ids: string[]): Promise<void> {
  const client = httpClient(url, 4);
  try {
    for (const id of ids)
      expectStatus(
        await client.send("POST", `/incidents/${id}/events`, JSON.stringify(openedEnvelope()), {
          authorization: `Bearer ${TOKEN}`,
        }),
        201,
      );
  } finally {
    client.close();
  }
}
