import { PutItemCommand } from "@aws-sdk/client-dynamodb";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { reportEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { runLoad } from "../lib/load.js";
import type { Row } from "../lib/results.js";
import { row } from "../lib/row.js";
import { seedIncidents } from "../lib/seed.js";
import { percentile } from "../lib/stats.js";
import type { Suite } from "../lib/suite.js";

const TOKEN = "bench-lag-token-0123456789";
const GOAL_MS = 50;

/**
 * From an append's 201 reaching the client to its view holding that version, on the local
 * server as `npm start` runs it (commits fed to the projector on its feed thread, as a stream
 * would). The request thread notes when the feed thread reports each version projected, so
 * nothing polls.
 */
export const projectionLag: Suite = {
  name: "Projection lag",
  steps: () => 2,
  async run(ctx) {
    const server = await startLocalServer({ port: 0, dynamoPort: 0, token: TOKEN, log: silentLogger });
    const saved = watchSaves(server);
    const rows: Row[] = [];
    try {
      const incidents = Array.from({ length: ctx.sizes.manyIncidents }, (_, k) => `lag-${k}`);
      await seedIncidents(server.ledger.events, incidents);
      await server.stream.idle();
      const put = await rawPutLatency(server, ctx.sizes.lagAppends);
      for (const writers of [1, 16]) {
        const lags = await measureLag(server, saved, incidents, writers, ctx.sizes.lagAppends);
        const who = writers === 1 ? "1 writer" : "16 writers";
        const common = {
          group:
            "Projection lag: append acknowledged → view updated — the local server's wiring inside the benchmark's process (projector on its feed thread; the request thread notes each version projected)",
          unit: "ms",
          baselineName: `one raw conditional PutItem${writers === 1 ? "" : " under 16 callers"}, the least a projection does`,
        };
        const base = writers === 1 ? put.single : put.loaded;
        rows.push(
          row({
            ...common,
            id: `lag.w${writers}.p50`,
            title: `${who} — p50`,
            subject: percentile(lags, 50),
            baseline: percentile(base, 50),
            goal: { on: "none", note: "context" },
          }),
          row({
            ...common,
            id: `lag.w${writers}.p99`,
            title: `${who} — p99`,
            subject: percentile(lags, 99),
            baseline: percentile(base, 99),
            goal: { on: "value", op: "<=", target: GOAL_MS },
          }),
        );
        ctx.progress.step(`projection lag, ${who}`);
      }
    } finally {
      await server.close();
    }
    return rows;
  },
};

type Saves = Map<string, { version: number; at: number }[]>;

/**
 * Where each acknowledged version is seen projected. The projector runs on npm start's feed
 * thread, so its saves cannot be wrapped from here: the time is when the request thread learns
 * the version is projected (`stream.settled`, what a read waits for), a few µs after the save.
 */
export function watchSaves(_server: LocalServer): Saves {
  return new Map();
}

export async function measureLag(
  server: LocalServer,
  saves: Saves,
  incidents: readonly string[],
  writers: number,
  total: number,
): Promise<number[]> {
  const client = httpClient(server.url, writers);
  const acks: { incidentId: string; version: number; at: number }[] = [];
  await runLoad({
    total,
    concurrency: writers,
    op: async (i) => {
      const incidentId = incidents[i % incidents.length] as string;
      const answer = expectStatus(
        await client.send("POST", `/incidents/${incidentId}/events`, JSON.stringify(reportEnvelope(i)), {
          authorization: `Bearer ${TOKEN}`,
        }),
        201,
      );
      const version = (JSON.parse(answer.text) as { version: number }).version;
      acks.push({ incidentId, version, at: performance.now() });
      void server.stream.projected(incidentId).then(() => {
        saves.set(incidentId, [...(saves.get(incidentId) ?? []), { version, at: performance.now() }]);
      });
    },
  });
  await server.stream.idle();
  client.close();
  return acks.map((ack) => {
    const landed = saves.get(ack.incidentId)?.find((s) => s.version >= ack.version);
    if (!landed) throw new Error(`view of ${ack.incidentId} never reached version ${ack.version}`);
    return Math.max(0, landed.at - ack.at);
  });
}

/** The baseline: one raw conditional PutItem on the same dynalite, alone and under 16 callers. */
async function rawPutLatency(server: LocalServer, total: number) {
  const db = createDynamoClient(server.dynamoEndpoint);
  const times = (concurrency: number, tag: string) => {
    const out: number[] = [];
    return runLoad({
      total,
      concurrency,
      op: async (i) => {
        const started = performance.now();
        await db.send(
          new PutItemCommand({
            TableName: server.tables.events,
            Item: {
              incidentId: { S: `raw-${tag}` },
              version: { N: String(i + 1) },
              body: { S: JSON.stringify(reportEnvelope(i)) },
            },
            ConditionExpression: "attribute_not_exists(version)",
          }),
        );
        out.push(performance.now() - started);
      },
    }).then(() => out);
  };
  const single = await times(1, "single");
  const loaded = await times(16, "loaded");
  db.destroy();
  return { single, loaded };
}
