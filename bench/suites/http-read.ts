import { sealIncident, storeHistory } from "../lib/history.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { alternate, runLoad } from "../lib/load.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row } from "../lib/row.js";
import { seedIncidents } from "../lib/seed.js";
import { startStack } from "../lib/stack.js";
import { medianOf } from "../lib/stats.js";
import type { Suite } from "../lib/suite.js";

const SUMMARY_EVENTS = 30;

/**
 * GET /incidents/{id} (the stored view) against a bare route answering the same item's summary
 * text from one raw GetItem; and GET ?asOf= at 1,000 events against a bare route doing the
 * raw paginated Query over the same commit items (the floor of any read that folds the stream).
 */
export const httpRead: Suite = {
  name: "HTTP read",
  steps: () => 3,
  async run(ctx) {
    const { sizes, progress } = ctx;
    const stack = await startStack();
    const rows: Row[] = [];
    try {
      const readIds = Array.from({ length: 20 }, (_, k) => `read-${k}`);
      const deep = "read-as-of-deep";
      progress.note(`seeding ${readIds.length} incidents and one of ${sizes.asOfEvents} events`);
      await seedIncidents(stack.ledger.events, readIds, SUMMARY_EVENTS - 1);
      await storeHistory(
        stack.db,
        stack.tables.events,
        new Map([[deep, sealIncident(deep, sizes.asOfEvents)]]),
      );
      for (const id of [...readIds, deep]) await stack.ledger.projector.project(id);

      for (const readers of [1, 16]) {
        const archive = httpClient(stack.archiveUrl, readers);
        const raw = httpClient(stack.rawUrl, readers);
        const idOf = (i: number) => readIds[i % readIds.length] as string;
        const side = (send: (i: number) => Promise<unknown>) => () =>
          runLoad({ total: sizes.readRequests, concurrency: readers, op: send });
        const ours = (i: number) =>
          archive.send("GET", `/incidents/${idOf(i)}`).then((a) => expectStatus(a, 200));
        const bare = (i: number) => raw.send("GET", `/raw/${idOf(i)}`).then((a) => expectStatus(a, 200));
        await side(ours)();
        await side(bare)();
        const rounds = await alternate(sizes.rounds, { archive: side(ours), raw: side(bare) });
        archive.close();
        raw.close();
        const a = medianOf(rounds.archive);
        const r = medianOf(rounds.raw);
        const common = {
          group: `Summary read vs a bare route doing one raw GetItem (incident of ${SUMMARY_EVENTS} events) — in-process (the AWS picture: the API reads a stored view)`,
          baselineName: "bare Hono route: one raw GetItem of the same view item",
          goal: ratioGoal("<=", 1.1),
        };
        const who = readers === 1 ? "1 reader" : "16 readers";
        if (readers === 1) {
          rows.push(
            row({
              ...common,
              id: "read.summary.r1.p50",
              title: `${who} — p50`,
              unit: "ms",
              subject: a.p50,
              baseline: r.p50,
            }),
            row({
              ...common,
              id: "read.summary.r1.p99",
              title: `${who} — p99`,
              unit: "ms",
              subject: a.p99,
              baseline: r.p99,
            }),
          );
        } else {
          rows.push(
            row({
              ...common,
              id: "read.summary.r16.throughput",
              title: `${who} — throughput`,
              unit: "req/s",
              subject: a.throughput,
              baseline: r.throughput,
              goal: ratioGoal(">=", 0.91),
            }),
          );
        }
        progress.step(`summary read, ${who}`);
      }

      const client = httpClient(stack.archiveUrl, 1);
      const rawClient = httpClient(stack.rawUrl, 1);
      const asOf = "2100-01-01T00:00:00Z";
      const side = (send: () => Promise<unknown>) => () =>
        runLoad({ total: sizes.asOfRequests, concurrency: 1, op: send });
      const ours = () =>
        client.send("GET", `/incidents/${deep}?asOf=${asOf}`).then((a) => expectStatus(a, 200));
      const bare = () => rawClient.send("GET", `/raw/${deep}/items`).then((a) => expectStatus(a, 200));
      await ours();
      await bare();
      const rounds = await alternate(sizes.rounds, { archive: side(ours), raw: side(bare) });
      client.close();
      rawClient.close();
      const a = medianOf(rounds.archive);
      const r = medianOf(rounds.raw);
      rows.push(
        row({
          id: "read.asOf.p50",
          group: "Time travel",
          title: `asOf read at ${sizes.asOfEvents.toLocaleString("en-US")} events (folds them all) — p50`,
          unit: "ms",
          subject: a.p50,
          baseline: r.p50,
          baselineName: "bare route: raw paginated Query over the same commit items",
          goal: context("context: what time travel costs over reading the items"),
        }),
      );
      progress.step("asOf read");
    } finally {
      await stack.close();
    }
    return rows;
  },
};
