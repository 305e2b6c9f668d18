import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./lib/paths.js";
import type { Results } from "./lib/results.js";

/**
 * Runs `npm run bench -- --quick` once, into a temporary directory, and checks that every row
 * is there with a ratio and a goal: the benchmark cannot rot unnoticed. It asserts nothing
 * about speed: benchmarks measure, tests do not time. Run by bench's own `npm test`
 * (`npm test -w incident-ledger-bench`), not by the product's.
 */
const APPEND_CONFIGS = ["w1", "w16"].flatMap((w) =>
  ["one", "many"].flatMap((t) => ["eventId", "noEventId"].map((i) => `append.${w}.${t}.${i}`)),
);
const EXPECTED_ROWS = [
  ...["w1.one.noEventId", "w16.one.eventId"].flatMap((l) => [
    `user.${l}.throughput`,
    `user.${l}.p50`,
    `user.${l}.5xx`,
  ]),
  "user.readAfterWrite",
  "rebuild.finished",
  "rebuild.progress",
  "rebuild.rate",
  ...APPEND_CONFIGS.flatMap((c) => [`${c}.p50`, `${c}.p99`, `${c}.throughput`]),
  "read.summary.r1.p50",
  "read.summary.r1.p99",
  "read.summary.r16.throughput",
  "read.asOf.p50",
  "castore.known.p50",
  "castore.known.p99",
  "castore.command.1.throughput",
  "castore.command.10.throughput",
  "castore.command.100.throughput",
  "bundle.size",
  "bundle.import",
  ...["append", "project", "summary", "past", "pastFar", "page", "verify"].flatMap((op) =>
    [1000, 10000].map((n) => `long.${op}.${n}`),
  ),
  ...["project", "summary", "past"].flatMap((op) => [1000, 10000].map((n) => `long.issue.${op}.${n}`)),
];

const out = mkdtempSync(join(tmpdir(), "ledger-bench-test-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("npm run bench -- --quick", () => {
  it("writes every row with a ratio and a goal, with the machine and the commit", {
    timeout: 480_000,
  }, async () => {
    await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "bench/run.ts", "--quick", "--out", out],
      {
        cwd: ROOT,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const results = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as Results;
    expect(results.quick).toBe(true);
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.node).toMatch(/^v\d+/);
    expect(results.commit.sha).toMatch(/^[0-9a-f]{40}$|^unknown$/);
    expect(results.rows.map((r) => r.id).sort()).toEqual([...EXPECTED_ROWS].sort());
    for (const row of results.rows) {
      // A count whose goal is none (5xx answers) has ratio 0 when all is well.
      expect(Number.isFinite(row.ratio) && row.ratio >= 0, `${row.id} has a ratio`).toBe(true);
      expect(
        Number.isFinite(row.subject) && Number.isFinite(row.baseline),
        `${row.id} has both figures`,
      ).toBe(true);
      expect(["ratio", "value", "none"], `${row.id} has a goal`).toContain(row.goal.on);
      expect(row.met === null, `${row.id}: context rows have no verdict, goal rows have one`).toBe(
        row.goal.on === "none",
      );
    }
    const markdown = readFileSync(join(out, "latest.md"), "utf8");
    for (const row of results.rows) expect(markdown).toContain(row.title);
  });
});
