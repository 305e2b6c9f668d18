import { reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { alternate, runLoad } from "../lib/load.js";
import type { Row } from "../lib/results.js";
import { ratioGoal, row } from "../lib/row.js";
import { seedIncidents } from "../lib/seed.js";
import { AUTH, type Stack, startStack } from "../lib/stack.js";
import { type LatencySummary, medianOf } from "../lib/stats.js";
import type { Sizes, Suite } from "../lib/suite.js";

interface Config {
  writers: 1 | 16;
  target: "one" | "many";
  eventIds: boolean;
}

const CONFIGS: Config[] = [1, 16].flatMap((writers) =>
  (["one", "many"] as const).flatMap((target) =>
    [true, false].map((eventIds) => ({ writers: writers as 1 | 16, target, eventIds })),
  ),
);

const BASELINE = "bare Hono route: one raw conditional PutItem of the same body";
const GROUP =
  "Append over HTTP vs a bare route doing one raw conditional PutItem — in-process (the AWS picture: the projector is another Lambda)";

/**
 * POST /incidents/{id}/events against a bare Hono route on the same @hono/node-server stack
 * that puts the same body with one conditional PutItem. The archive runs as the API Lambda
 * wires it (no projector in the request's process: in AWS the projector is another function).
 */
export const httpAppend: Suite = {
  name: "HTTP append",
  steps: () => CONFIGS.length,
  async run(ctx) {
    const rows: Row[] = [];
    const stack = await startStack();
    try {
      for (const config of CONFIGS) {
        const label = describe(config);
        ctx.progress.note(`append ${label}`);
        const result = await measure(stack, config, ctx.sizes, slug(config));
        rows.push(...toRows(config, result.archive, result.raw));
        ctx.progress.step(`append ${label}`);
      }
    } finally {
      await stack.close();
    }
    return rows;
  },
};

async function measure(stack: Stack, config: Config, sizes: Sizes, tag: string) {
  const incidents =
    config.target === "one"
      ? [`one-${tag}`]
      : Array.from({ length: sizes.manyIncidents }, (_, k) => `many-${tag}-${k}`);
  await seedIncidents(stack.ledger.events, incidents);
  const archive = httpClient(stack.archiveUrl, config.writers);
  const raw = httpClient(stack.rawUrl, config.writers);
  const incidentOf = (i: number) => incidents[i % incidents.length] as string;
  const body = (round: number, i: number) =>
    JSON.stringify(reportEnvelope(i, config.eventIds ? `${tag}-r${round}-${i}` : undefined));
  const sendArchive = (round: number) => (i: number) =>
    archive
      .send("POST", `/incidents/${incidentOf(i)}/events`, body(round, i), AUTH)
      .then((a) => expectStatus(a, 201));
  const sendRaw = (round: number) => (i: number) =>
    raw.send("POST", `/raw/${incidentOf(i)}/events`, body(round, i)).then((a) => expectStatus(a, 201));
  try {
    // Warm: every incident's head is cached, connections are open, the code is compiled.
    const warm = Math.max(incidents.length, 50);
    await runLoad({ total: warm, concurrency: config.writers, op: sendArchive(-1) });
    await runLoad({ total: warm, concurrency: config.writers, op: sendRaw(-1) });
    const total = sizes.appendRequests * (config.writers === 16 ? 2 : 1);
    const rounds = await alternate(sizes.rounds, {
      archive: (round) => runLoad({ total, concurrency: config.writers, op: sendArchive(round) }),
      raw: (round) => runLoad({ total, concurrency: config.writers, op: sendRaw(round) }),
    });
    return { archive: medianOf(rounds.archive), raw: medianOf(rounds.raw) };
  } finally {
    archive.close();
    raw.close();
  }
}

function toRows(config: Config, ours: LatencySummary, raw: LatencySummary): Row[] {
  const goal = config.eventIds ? 2.0 : 1.15;
  const id = `append.${key(config)}`;
  const title = describe(config);
  const common = { group: GROUP, baselineName: BASELINE };
  return [
    row({
      ...common,
      id: `${id}.p50`,
      title: `${title} — p50`,
      unit: "ms",
      subject: ours.p50,
      baseline: raw.p50,
      goal: ratioGoal("<=", goal),
    }),
    row({
      ...common,
      id: `${id}.p99`,
      title: `${title} — p99`,
      unit: "ms",
      subject: ours.p99,
      baseline: raw.p99,
      goal: ratioGoal("<=", goal),
    }),
    row({
      ...common,
      id: `${id}.throughput`,
      title: `${title} — throughput`,
      unit: "req/s",
      subject: ours.throughput,
      baseline: raw.throughput,
      goal: ratioGoal(">=", Number((1 / goal).toFixed(2))),
    }),
  ];
}

function key(c: Config): string {
  return `w${c.writers}.${c.target}.${c.eventIds ? "eventId" : "noEventId"}`;
}

/** The key as incident and event ids may spell it. */
function slug(c: Config): string {
  return key(c).replaceAll(".", "-").toLowerCase();
}

function describe(c: Config): string {
  const writers = c.writers === 1 ? "1 writer" : "16 writers";
  const target = c.target === "one" ? "one incident" : "many incidents";
  return `${writers} · ${target} · ${c.eventIds ? "client eventId" : "no eventId"}`;
}
