/**
 * Group commit, measured as a user meets it: two `npm start` processes — this worktree's and a
 * baseline checkout (`BASELINE_DIR`, default /work/main) — each in its own process, loaded in
 * turn by autocannon from this one (its own process too), A/B alternating, ROUNDS rounds.
 *
 *   npx tsx scripts/measure-group-commit.ts            # ROUNDS=2 SECONDS=8
 *   BASELINE_DIR=/some/other/checkout LOADS=0 npx tsx scripts/measure-group-commit.ts
 *
 * Prints one JSON line per run and a markdown table of medians. Each server gets a fresh
 * DATA_DIR; both are stopped (their own process group) after each run.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The part of autocannon's programmatic API used here (it ships no types). */
interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (req: Request) => Request;
}
interface Result {
  "2xx": number;
  non2xx: number;
  errors: number;
  latency: { p50: number; p99: number };
}
const autocannon = createRequire(import.meta.url)("autocannon") as (options: {
  url: string;
  connections: number;
  duration: number;
  requests: Request[];
}) => Promise<Result>;

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SECONDS = Number(process.env.SECONDS ?? 8);
const TOKEN = "measure-token-0123456789";
const servers = {
  "group-commit": { dir: resolve(import.meta.dirname, ".."), port: 3800, dynamoPort: 8800 },
  baseline: { dir: process.env.BASELINE_DIR ?? "/work/main", port: 3850, dynamoPort: 8850 },
};
type Which = keyof typeof servers;

interface Load {
  name: string;
  connections: number;
  clientIds: boolean;
}
const allLoads: Load[] = [
  { name: "16 writers · one incident · client eventId", connections: 16, clientIds: true },
  { name: "1 writer · one incident · no eventId", connections: 1, clientIds: false },
  { name: "1 writer · one incident · client eventId", connections: 1, clientIds: true },
];
/** LOADS=0,2 runs only those rows. */
const loads = process.env.LOADS
  ? process.env.LOADS.split(",").map((i) => allLoads[Number(i)] as Load)
  : allLoads;

async function start(which: Which): Promise<{ child: ChildProcess; url: string }> {
  const s = servers[which];
  const child = spawn("npm", ["start"], {
    cwd: s.dir,
    detached: true, // its own process group, so the stop reaches tsx's node child too
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      PORT: String(s.port),
      DYNAMO_PORT: String(s.dynamoPort),
      DATA_DIR: mkdtempSync(join(tmpdir(), `gc-measure-${which}-`)),
      LEDGER_TOKEN: TOKEN,
      LOG_LEVEL: "error",
    },
  });
  child.stderr?.resume();
  const url = `http://127.0.0.1:${s.port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/health`)).ok) return { child, url };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  stop(child);
  throw new Error(`${which} did not start`);
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolveStop) => {
    child.once("exit", () => resolveStop());
    if (child.pid) process.kill(-child.pid, "SIGTERM");
  });
}

const body = (n: number, eventId?: string) =>
  JSON.stringify({
    ...(eventId ? { eventId } : {}),
    type: "CasualtiesReported",
    source: { publisher: "Load" },
    attributedTo: { name: `writer-${n % 16}` },
    data: { figures: { killed: { value: n, qualifier: "exact" } } },
  });

async function run(which: Which, load: Load, round: number) {
  const { child, url } = await start(which);
  try {
    const incident = `hot-${round}-${load.connections}-${load.clientIds ? "ids" : "plain"}`;
    const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const opened = await fetch(`${url}/incidents/${incident}/events`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        type: "IncidentOpened",
        source: { publisher: "Load" },
        data: { title: "Hot", kind: "shelling", location: { name: "X", country: "UA" } },
      }),
    });
    if (opened.status !== 201) throw new Error(`open: ${opened.status}`);
    let n = 0;
    const result = await autocannon({
      url,
      connections: load.connections,
      duration: SECONDS,
      requests: [
        {
          method: "POST",
          path: `/incidents/${incident}/events`,
          headers,
          setupRequest: (req) => {
            n += 1;
            return { ...req, body: body(n, load.clientIds ? `load-${which}-${round}-${n}` : undefined) };
          },
        },
      ],
    });
    const verify = (await (await fetch(`${url}/incidents/${incident}/verify`)).json()) as {
      ok: boolean;
      version: number;
    };
    const line = {
      server: which,
      load: load.name,
      round,
      perSecond: Math.round(result["2xx"] / SECONDS),
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      verified: verify.ok === true && verify.version >= result["2xx"] + 1,
    };
    console.log(JSON.stringify(line));
    return line;
  } finally {
    await stop(child);
  }
}

const lines: Awaited<ReturnType<typeof run>>[] = [];
for (const load of loads) {
  for (let round = 0; round < ROUNDS; round++) {
    const order: Which[] = round % 2 === 0 ? ["group-commit", "baseline"] : ["baseline", "group-commit"];
    for (const which of order) lines.push(await run(which, load, round));
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
console.log("\n| load | group commit | baseline (main) | ratio |\n| --- | --- | --- | --- |");
for (const load of loads) {
  const of = (w: Which) => lines.filter((l) => l.load === load.name && l.server === w);
  const [g, b] = [of("group-commit"), of("baseline")];
  const gs = median(g.map((l) => l.perSecond));
  const bs = median(b.map((l) => l.perSecond));
  console.log(
    `| ${load.name} | ${g.map((l) => l.perSecond).join("–")}/s, p50 ${median(g.map((l) => l.p50))} ms | ${b
      .map((l) => l.perSecond)
      .join("–")}/s, p50 ${median(b.map((l) => l.p50))} ms | ${(gs / bs).toFixed(2)}× |`,
  );
}
