import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import type { Summary } from "../../events/summarize.js";
import { Projector } from "../../functions/projector/projector.js";
import { SNAPSHOT_EVERY } from "../../functions/store/view-store.js";
import { fixedBreadthHistory, ISSUE, longHistory, seedCommits } from "../../test/support/long-history.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row } from "../lib/row.js";
import { AUTH, startStack } from "../lib/stack.js";
import { median } from "../lib/stats.js";
import type { Suite } from "../lib/suite.js";

/** Events per incident: the baseline, and the two lengths each operation is compared at. */
const LENGTHS = [10, 1_000, 10_000] as const;
const BASE = LENGTHS[0];

/**
 * Two families of incidents. `length`: the same three sources, one denial, one assessment and
 * one retraction in the first 10 events, then only reports and statements by those sources —
 * its summary is the same size at every length, so its rows measure LENGTH (the goal rows).
 * `issue`: the issue's siege (40 rotating officials, denials and retractions by the thousandth):
 * its summary grows as sources appear and denials accumulate, which the contract promises
 * (one row per source, every live denial): context rows, to show what that costs.
 */
type Family = "length" | "issue";
const FAMILIES: { family: Family; seed: (id: string, n: number) => ReturnType<typeof longHistory> }[] = [
  { family: "length", seed: (id, n) => fixedBreadthHistory(id, n, 11) },
  { family: "issue", seed: (id, n) => longHistory(id, n, 11, ISSUE) },
];

type Op = "append" | "project" | "summary" | "past" | "pastFar" | "page" | "verify";
/** The operations measured on the issue's family too, as context. */
const ISSUE_OPS: readonly Op[] = ["project", "summary", "past"];
const OPS: { op: Op; title: string; goal: boolean }[] = [
  { op: "append", title: "append one event (POST, HTTP)", goal: true },
  {
    op: "project",
    title: "projection of one commit (a cold projector: reads the view, folds, saves)",
    goal: true,
  },
  { op: "summary", title: "summary read GET /incidents/{id}", goal: true },
  {
    op: "past",
    title: "past-version read ?version= (a snapshot + 5 events; at 10 events: 5 events)",
    goal: true,
  },
  {
    op: "pastFar",
    title: `past-version read ?version= (a snapshot + ${SNAPSHOT_EVERY - 1} events, the farthest; at 10 events: 9)`,
    goal: false,
  },
  { op: "page", title: "incident page /view/{id}", goal: true },
  { op: "verify", title: "/verify (a full re-read: linear by design)", goal: false },
];

/**
 * Each operation on incidents of 10, 1,000 and 10,000 events, as a ratio to the same
 * operation at 10: the cost of an operation must not follow the incident's length. Incidents
 * are seeded by writing commit items straight into the table (10,000 events in seconds), then
 * projected once, as the stream would have done.
 */
export const longIncident: Suite = {
  name: "Long incidents",
  steps: () => 2 * LENGTHS.length + OPS.length + ISSUE_OPS.length,
  async run(ctx) {
    const { quick, progress } = ctx;
    const reps = quick ? 3 : 25;
    const rounds = quick ? 1 : 3;
    const stack = await startStack();
    const client = httpClient(stack.archiveUrl, 1);
    const rows: Row[] = [];
    try {
      let family: Family = "length";
      const idOf = (n: number) => `${family}-${n}`;
      const sizes = new Map<string, string>();
      /** What the incident's view holds: the summary served, the stored state, the view item, its breadth. */
      const measure = async (n: number) => {
        const served = await client.send("GET", `/incidents/${idOf(n)}`);
        const summary = JSON.parse(served.text) as Summary;
        const item = await stack.db.send(
          new GetItemCommand({ TableName: stack.tables.views, Key: { incidentId: { S: idOf(n) } } }),
        );
        const stateBytes = item.Item?.state?.B?.length ?? 0;
        const itemBytes = stateBytes + Buffer.byteLength(item.Item?.summary?.S ?? "");
        const sources = Object.values(summary.casualties).reduce((k, c) => k + c.bySource.length, 0);
        const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
        return (
          `summary ${kb(Buffer.byteLength(served.text))}, state ${kb(stateBytes)} gzipped, view item ${kb(itemBytes)}; ` +
          `${sources} bySource rows, ${summary.denials.length} denials, ${summary.retractedEventIds.length} retracted ids`
        );
      };
      for (const f of FAMILIES)
        for (const n of LENGTHS) {
          family = f.family;
          progress.note(
            `seeding a ${family} incident of ${n.toLocaleString("en-US")} events as commit items`,
          );
          await seedCommits(stack.db, stack.tables.events, f.seed(idOf(n), n));
          await stack.ledger.projector.project(idOf(n));
          sizes.set(idOf(n), await measure(n));
          // A full check on record, as /verify leaves one: the page then checks only what follows it.
          expectStatus(await client.send("GET", `/incidents/${idOf(n)}/verify`), 200);
          progress.step(`long incidents`);
        }
      let k = 0;
      const statement = () =>
        JSON.stringify({
          type: "StatementMade",
          source: { publisher: "Bench" },
          attributedTo: { name: "Bench speaker" },
          data: { quote: `bench statement ${++k}`, stance: "neutral" },
        });
      // The same distance from the snapshot below at every length, so the ratio shows the length's effect alone.
      const pastVersion = (n: number) => (n <= SNAPSHOT_EVERY ? 5 : n / 2 + 5);
      const farVersion = (n: number) => (n <= SNAPSHOT_EVERY ? n - 1 : n / 2 + SNAPSHOT_EVERY - 1);
      const once: Record<Op, (n: number) => Promise<number>> = {
        append: (n) =>
          timed(async () =>
            expectStatus(await client.send("POST", `/incidents/${idOf(n)}/events`, statement(), AUTH), 201),
          ),
        project: async (n) => {
          await stack.ledger.events.append({
            incidentId: idOf(n),
            envelopes: [JSON.parse(statement())],
            recordedBy: "bench",
            batched: false,
          });
          const cold = new Projector(stack.ledger.events, stack.ledger.views);
          return timed(() => cold.project(idOf(n)));
        },
        summary: (n) =>
          timed(async () => expectStatus(await client.send("GET", `/incidents/${idOf(n)}`), 200)),
        past: (n) =>
          timed(async () =>
            expectStatus(await client.send("GET", `/incidents/${idOf(n)}?version=${pastVersion(n)}`), 200),
          ),
        pastFar: (n) =>
          timed(async () =>
            expectStatus(await client.send("GET", `/incidents/${idOf(n)}?version=${farVersion(n)}`), 200),
          ),
        page: (n) => timed(async () => expectStatus(await client.send("GET", `/view/${idOf(n)}`), 200)),
        verify: (n) =>
          timed(async () => expectStatus(await client.send("GET", `/incidents/${idOf(n)}/verify`), 200)),
      };
      const runs = [
        ...OPS.map((o) => ({ ...o, family: "length" as Family })),
        ...OPS.filter((o) => ISSUE_OPS.includes(o.op)).map((o) => ({
          ...o,
          goal: false,
          family: "issue" as Family,
        })),
      ];
      for (const { op, title, goal, family: runFamily } of runs) {
        family = runFamily;
        const count = op === "verify" ? Math.max(3, Math.floor(reps / 5)) : reps;
        const p50s = new Map<number, number[]>(LENGTHS.map((n) => [n, []]));
        // Keep the appends out of the reads' incidents' way: project what they added first.
        for (const n of LENGTHS) await stack.ledger.projector.project(idOf(n));
        for (let r = 0; r < rounds; r++)
          for (const n of LENGTHS) {
            await once[op](n); // warm-up
            const samples: number[] = [];
            for (let i = 0; i < count; i++) samples.push(await once[op](n));
            p50s.get(n)?.push(median(samples));
          }
        const base = median(p50s.get(BASE) ?? []);
        const issue = family === "issue";
        for (const n of LENGTHS.slice(1))
          rows.push(
            row({
              id: issue ? `long.issue.${op}.${n}` : `long.${op}.${n}`,
              group: issue
                ? "Long incidents, the issue's siege (breadth grows): at N events ÷ at 10 events (p50), context"
                : "Long incidents (same breadth at every length): each operation at N events ÷ at 10 events (p50)",
              title: `${title} — ${n.toLocaleString("en-US")} events${issue ? ", 40 officials, denials growing" : ""}`,
              unit: "ms",
              subject: median(p50s.get(n) ?? []),
              baseline: base,
              baselineName: `the same operation on an incident of ${BASE} events of the same kind`,
              goal: goal
                ? ratioGoal("<=", 1.3)
                : context(
                    op === "verify"
                      ? "a full re-read: linear in the incident by design"
                      : issue
                        ? "the summary lists one row per source and every live denial (the contract's promise): it grows with breadth, not length"
                        : "shows the bound",
                  ),
              detail: `at ${n.toLocaleString("en-US")}: ${sizes.get(idOf(n)) ?? "?"}; at ${BASE}: ${sizes.get(idOf(BASE)) ?? "?"}`,
            }),
          );
        progress.step(`long incidents`);
      }
    } finally {
      client.close();
      await stack.close();
    }
    return rows;
  },
};

async function timed(op: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await op();
  return performance.now() - started;
}
