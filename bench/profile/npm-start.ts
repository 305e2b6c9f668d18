import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openedEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { eachLimited } from "../lib/seed.js";
import type { LoadResult, LoadSpec } from "../user/load-generator.js";
import { runScript, startServer } from "../user/processes.js";

/**
 * Profiles `npm start` (functions/local/main.ts in its own process, fresh DATA_DIR) under one
 * load of the headline rows, driven by the external load generator, and measures the same
 * process's CPU per request. Usage:
 *   tsx bench/profile/npm-start.ts <w16-many-eventId|w16-one-eventId|w1-one|w16-many-lag> [seconds] [--memory] [--no-prof]
 * `--memory` keeps dynalite in memory (DATA_DIR unset is not possible with main.ts, so this
 * starts functions/local/server.ts through bench/profile/npm-start-memory.ts) to split out the
 * disk store's share; `--no-prof` runs without the profiler, for the CPU split by thread alone. Profiles land in .bench-tmp/npm-start-<load>/ for bench/profile/analyze.ts.
 */
const TOKEN = "bench-profile-token-0123456789abcdef";
const load = process.argv[2] ?? "w16-many-eventId";
const seconds = Number(process.argv[3] ?? 8);
const memory = process.argv.includes("--memory");
// Without --cpu-prof the per-thread CPU split below is the process's own (the profiler costs CPU).
const profiling = !process.argv.includes("--no-prof");
const profileDir = resolve(`.bench-tmp/npm-start-${load}${memory ? "-memory" : ""}`);
rmSync(profileDir, { recursive: true, force: true });
const dataDir = mkdtempSync(join(tmpdir(), "ledger-profile-"));

const server = await startServer(
  process.execPath,
  [
    ...(profiling ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
    // V8 flags to try on the server (e.g. "--single-threaded-gc"), space-separated.
    ...(process.env.SERVER_NODE_FLAGS?.split(" ").filter(Boolean) ?? []),
    "--import",
    "tsx",
    memory ? "bench/profile/npm-start-memory.ts" : "functions/local/main.ts",
  ],
  {
    ...process.env,
    PORT: "0",
    DYNAMO_PORT: "0",
    DATA_DIR: dataDir,
    LEDGER_TOKEN: TOKEN,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  },
  /API\s+(http:\/\/\S+)/,
);
try {
  const many = Array.from({ length: 200 }, (_, k) => `profile-many-${k}`);
  const one = ["profile-one"];
  const client = httpClient(server.url, 16);
  await eachLimited([...many, ...one], 16, async (id) =>
    expectStatus(
      await client.send("POST", `/incidents/${id}/events`, JSON.stringify(openedEnvelope()), {
        authorization: `Bearer ${TOKEN}`,
      }),
      201,
    ),
  );
  client.close();
  await server.quiet();
  const spec: LoadSpec = {
    url: server.url,
    connections: load.startsWith("w16") ? 16 : 1,
    seconds,
    kind: "append",
    incidents: load.includes("many") ? many : one,
    token: TOKEN,
    ...(load.includes("eventId") || load.includes("lag") ? { eventIdPrefix: "profile" } : {}),
    ...(load.includes("lag") ? { lagProbe: 16 } : {}),
  };
  const cpuBefore = server.cpuSeconds();
  const threadsBefore = server.threadCpuSeconds();
  const result = JSON.parse(
    (await runScript("bench/user/load-generator.ts", [JSON.stringify(spec)])).trim(),
  ) as LoadResult;
  await server.quiet();
  const cpu = server.cpuSeconds() - cpuBefore;
  // By thread (node names its worker threads alike: the request thread is the process's own
  // pid, then the store, feed and loader threads in the order they started).
  const split = [...server.threadCpuSeconds()]
    .map(([thread, seconds]) => [thread, seconds - (threadsBefore.get(thread) ?? 0)] as const)
    .filter(([, seconds]) => seconds > 0.05)
    .map(([thread, seconds]) => `  ${thread}: ${((seconds / result.count) * 1e6).toFixed(0)} µs a request`);
  const { lags, lagFloors, ...rest } = result;
  process.stdout.write(
    `${load}${memory ? " (dynalite in memory)" : ""}: ${JSON.stringify(rest)}\n` +
      `server CPU ${cpu.toFixed(2)} s for ${result.count} requests: ${((cpu / result.count) * 1e6).toFixed(0)} µs a request, projection included\n` +
      `${split.join("\n")}\n` +
      (lags
        ? `lag p50 ${pct(lags, 50)} p99 ${pct(lags, 99)} ms; floors p50 ${pct(lagFloors ?? [], 50)} p99 ${pct(lagFloors ?? [], 99)} ms\n`
        : ""),
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(
  `profile in ${profileDir} (one file per thread: request, store, feed, tsx loaders): npx tsx bench/profile/analyze.ts ${profileDir} [or one file]\n`,
);

function pct(xs: number[], p: number) {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN).toFixed(1);
}
