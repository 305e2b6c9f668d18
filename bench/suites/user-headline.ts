import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openedEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row } from "../lib/row.js";
import { eachLimited } from "../lib/seed.js";
import { median, percentile } from "../lib/stats.js";
import type { Suite, SuiteContext } from "../lib/suite.js";
import type { LoadResult, LoadSpec } from "../user/load-generator.js";
import { runScript, type ServerProcess, startServer } from "../user/processes.js";

const TOKEN = "bench-user-token-0123456789abcdef";
const SAMPLE_INCIDENT = "kramatorsk-station-2022-04-08";
const GROUP =
  "Headline: as a user meets it — `npm start` in its own process vs a bare Hono + dynalite server in its own, autocannon in a third";
const BASELINE =
  "bare server process: Hono + @hono/node-server + in-process dynalite, one DynamoDB call a request";
const LAG_GOAL_MS = 50;

interface Load {
  key: string;
  title: string;
  kind: "append" | "read";
  connections: number;
  target: "many" | "one" | "sample";
  eventIds: boolean;
  /** The goal on throughput (archive ÷ bare), if it sets one. */
  goal?: number;
}

const LOADS: Load[] = [
  {
    key: "w16.many.eventId",
    title: "16 writers · 200 incidents · client eventId",
    kind: "append",
    connections: 16,
    target: "many",
    eventIds: true,
    goal: 0.45,
  },
  {
    key: "w16.many.noEventId",
    title: "16 writers · 200 incidents · no eventId",
    kind: "append",
    connections: 16,
    target: "many",
    eventIds: false,
  },
  {
    key: "w16.one.eventId",
    title: "16 writers · one incident · client eventId",
    kind: "append",
    connections: 16,
    target: "one",
    eventIds: true,
    goal: 0.5,
  },
  {
    key: "w1.one.noEventId",
    title: "1 writer · one incident · no eventId",
    kind: "append",
    connections: 1,
    target: "one",
    eventIds: false,
    goal: 0.6,
  },
  {
    key: "r16.summary",
    title: "16 readers · summary of the sample incident",
    kind: "read",
    connections: 16,
    target: "sample",
    eventIds: false,
    goal: 0.9,
  },
];

const GENERATOR = resolve("bench/user/load-generator.ts");

/**
 * The headline rows (issue 10): the archive as `npm start` runs it — `tsx functions/local/main.ts`
 * in its own process with a fresh DATA_DIR, HTTP server, app, in-process projector and dynalite
 * together — against bench/user/bare-server.ts in another process, loaded by autocannon from a
 * third. Each load runs alternately on each side (order swapped every round), medians reported;
 * between runs both servers are left to go quiet (the projector catching up belongs to no run).
 */
export const userHeadline: Suite = {
  name: "User headline",
  steps: (s) => 1 + LOADS.length * (1 + 2 * s.userRounds) + s.userRounds,
  async run(ctx) {
    const { sizes, progress } = ctx;
    const dataDir = mkdtempSync(join(tmpdir(), "ledger-bench-user-"));
    const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" };
    progress.note("starting `npm start` (tsx functions/local/main.ts) and the bare server");
    let archive: ServerProcess | undefined;
    let bare: ServerProcess | undefined;
    try {
      archive = await startServer(
        resolve("node_modules/.bin/tsx"),
        ["functions/local/main.ts"],
        { ...env, PORT: "0", DYNAMO_PORT: "0", DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN },
        /API\s+(http:\/\/\S+)/,
      );
      bare = await startServer(
        process.execPath,
        ["--import", "tsx", "bench/user/bare-server.ts"],
        { ...env, PORT: "0" },
        /listening (http:\/\/\S+)/,
      );
      const sides = { archive, bare };
      const incidents = await prepare(ctx, archive, bare);
      progress.step("servers up, incidents opened, sample loaded");

      const rows: Row[] = [];
      let bareWriteP99 = Number.NaN;
      for (const load of LOADS) {
        const ids =
          load.target === "many"
            ? incidents.many
            : load.target === "one"
              ? [incidents.one[load.key] as string]
              : [SAMPLE_INCIDENT];
        const spec = (side: "archive" | "bare", tag: string, seconds: number): LoadSpec => ({
          url: sides[side].url,
          connections: load.connections,
          seconds,
          kind: load.kind,
          incidents: ids,
          token: TOKEN,
          ...(load.eventIds ? { eventIdPrefix: `${load.key.replaceAll(".", "-")}-${side}-${tag}` } : {}),
        });
        // CPU seconds of the server's process per request, the catch-up after the run (the
        // projector) included: steadier than throughput on a machine shared with other work.
        const generate = async (side: "archive" | "bare", tag: string, seconds: number) => {
          const before = sides[side].cpuSeconds();
          const result = await runGenerator(spec(side, tag, seconds));
          await Promise.all([archive?.quiet(), bare?.quiet()]);
          return { ...result, cpuMs: ((sides[side].cpuSeconds() - before) * 1000) / result.count };
        };
        progress.note(`${load.title}: warming both`);
        await generate("archive", "warm", sizes.userWarmSeconds);
        await generate("bare", "warm", sizes.userWarmSeconds);
        progress.step(`${load.title}: warmed both`);
        const runs = { archive: [] as Run[], bare: [] as Run[] };
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
        if (load.key === "w16.many.eventId") bareWriteP99 = b.p99;
        const rounds = `${sizes.userRounds} rounds of ${sizes.userSeconds} s each side; per round archive ${runs.archive.map((r) => Math.round(r.throughput)).join(", ")}/s, bare ${runs.bare.map((r) => Math.round(r.throughput)).join(", ")}/s.`;
        const common = { group: GROUP, baselineName: BASELINE, detail: rounds };
        rows.push(
          row({
            ...common,
            id: `user.${load.key}.throughput`,
            title: `${load.title} — throughput`,
            unit: "req/s",
            subject: a.throughput,
            baseline: b.throughput,
            goal:
              load.goal === undefined
                ? context("context: the issue sets no goal for this load")
                : ratioGoal(">=", load.goal),
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
            ...common,
            id: `user.${load.key}.cpu`,
            title: `${load.title} — server CPU per request`,
            unit: "ms",
            subject: a.cpuMs,
            baseline: b.cpuMs,
            goal: context("context: CPU time of the server's process per request, projection included"),
          }),
        );
      }

      const lags: number[] = [];
      const floors: number[] = [];
      const polls: number[] = [];
      for (let round = 0; round < sizes.userRounds; round++) {
        progress.note(`projection lag, 16 writers: round ${round + 1}/${sizes.userRounds}`);
        const result = await runGenerator({
          url: archive.url,
          connections: 16,
          seconds: sizes.userSeconds,
          kind: "append",
          incidents: incidents.many,
          token: TOKEN,
          eventIdPrefix: `lag-r${round}`,
          lagProbe: sizes.userLagProbe,
        });
        await archive.quiet();
        lags.push(...(result.lags ?? []));
        floors.push(...(result.lagFloors ?? []));
        polls.push(result.pollMs ?? Number.NaN);
        progress.step(`projection lag, 16 writers: p99 ${percentile(result.lags ?? [], 99).toFixed(0)} ms`);
      }
      const lagCommon = {
        group: `${GROUP}: projection lag`,
        unit: "ms",
        baselineName: "the bare server's write p99 at the same load (one write, the least a projection does)",
        detail: `Measured from outside: the load generator notes each acknowledged append to ${sizes.userLagProbe} of the ${incidents.many.length} incidents (${lags.length} appends) and polls their summaries until the ETag reaches the acknowledged version; an upper bound, late by at most one poll (median poll round trip ${median(polls).toFixed(1)} ms; the lower bounds, acknowledgement → sending of that poll, give p50 ${percentile(floors, 50).toFixed(1)} ms, p99 ${percentile(floors, 99).toFixed(1)} ms).`,
      };
      rows.push(
        row({
          ...lagCommon,
          id: "user.lag.w16.p50",
          title: "16 writers · 200 incidents — lag p50",
          subject: percentile(lags, 50),
          baseline: bareWriteP99,
          goal: context("context"),
        }),
        row({
          ...lagCommon,
          id: "user.lag.w16.p99",
          title: "16 writers · 200 incidents — lag p99",
          subject: percentile(lags, 99),
          baseline: bareWriteP99,
          goal: { on: "value", op: "<=", target: LAG_GOAL_MS },
        }),
      );
      return rows;
    } finally {
      await Promise.all([archive?.stop(), bare?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};

async function runGenerator(spec: LoadSpec): Promise<LoadResult> {
  const out = await runScript(GENERATOR, [JSON.stringify(spec)]);
  return JSON.parse(out.trim().split("\n").pop() as string) as LoadResult;
}

type Run = LoadResult & { cpuMs: number };

/** Medians over rounds (of two rounds, their mean: stats.median would take the lower). */
function summary(runs: Run[]) {
  const mid = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const h = Math.floor(s.length / 2);
    return s.length % 2 === 1 ? (s[h] as number) : ((s[h - 1] as number) + (s[h] as number)) / 2;
  };
  return {
    throughput: mid(runs.map((r) => r.throughput)),
    p50: mid(runs.map((r) => r.p50)),
    p99: mid(runs.map((r) => r.p99)),
    cpuMs: mid(runs.map((r) => r.cpuMs)),
  };
}

/** Opens the incidents the writes go to (through HTTP, as a client would) and loads the sample with `npm run sample`. */
async function prepare(ctx: SuiteContext, archive: ServerProcess, bare: ServerProcess) {
  const many = Array.from({ length: ctx.sizes.userIncidents }, (_, k) => `user-many-${k}`);
  const one = Object.fromEntries(
    LOADS.filter((l) => l.target === "one").map((l) => [
      l.key,
      `user-one-${l.key.replaceAll(".", "-").toLowerCase()}`,
    ]),
  );
  const client = httpClient(archive.url, 16);
  try {
    await eachLimited([...many, ...Object.values(one)], 16, async (id) =>
      expectStatus(
        await client.send("POST", `/incidents/${id}/events`, JSON.stringify(openedEnvelope()), {
          authorization: `Bearer ${TOKEN}`,
        }),
        201,
      ),
    );
  } finally {
    client.close();
  }
  await runScript("scripts/load-sample.ts", [], {
    ...process.env,
    LEDGER_URL: archive.url,
    LEDGER_TOKEN: TOKEN,
  });
  const bareClient = httpClient(bare.url, 1);
  expectStatus(await bareClient.send("PUT", `/incidents/${SAMPLE_INCIDENT}`), 204);
  bareClient.close();
  await archive.quiet();
  return { many, one };
}
