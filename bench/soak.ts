import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { fromRoot } from "./lib/paths.js";
import { writeReadmeBlock } from "./lib/readme.js";
import { gitCommit, machine, type Results, readResults, writeResults } from "./lib/results.js";
import { renderResults } from "./report.js";
import { runSoakLoad } from "./soak/load.js";
import { poisonedRecord } from "./soak/poison.js";
import { renderSoak, type SoakResults } from "./soak/report.js";
import { freePort, ServerProcess, sleep } from "./soak/server.js";
import { readBack, viewsCaughtUp } from "./soak/verify.js";

// `npm run soak [-- --quick] [-- --out dir]`: bounded load on loopback with the server killed
// (SIGKILL) and restarted twice mid-load, then every acknowledged event looked for. A full run
// into the default directory (bench/results/, git-ignored) rewrites the soak table in
// bench/README.md.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    out: { type: "string" },
    seconds: { type: "string" },
  },
});
const quick = values.quick === true;
const seconds = Number(values.seconds ?? (quick ? 15 : 60));
const writers = 16;
const incidentCount = quick ? 32 : 96;
const kills = 2;
const outDir = resolve(values.out ?? fromRoot("bench/results"));

const say = (line: string) => process.stderr.write(`soak: ${line}\n`);
const dataDir = mkdtempSync(join(tmpdir(), "ledger-soak-"));
const tag = `s${Date.now().toString(36)}`;
const incidents = Array.from({ length: incidentCount }, (_, k) => `soak-${tag}-${k}`);
const server = new ServerProcess({
  port: await freePort(),
  dynamoPort: await freePort(),
  dataDir: join(dataDir, "data"),
  token: `soak-token-${tag}-0123456789`,
  logFile: join(dataDir, "server.log"),
});

const commit = gitCommit(fromRoot());
let results: SoakResults | undefined;
try {
  say(`starting the server (data in ${dataDir})`);
  await server.start();
  const started = performance.now();
  const until = started + seconds * 1000;
  say(`${seconds} s of load: ${writers} writers, ${incidentCount} incidents; SIGKILL at 1/3 and 2/3`);
  const load = runSoakLoad({
    url: server.url,
    token: `soak-token-${tag}-0123456789`,
    writers,
    incidents,
    until,
    maxRequests: seconds * 2000,
    graceMs: 30_000,
    tag,
  });
  for (let k = 1; k <= kills; k++) {
    await sleep(Math.max(0, started + (seconds * 1000 * k) / (kills + 1) - performance.now()));
    say(`kill ${k}: SIGKILL`);
    await server.kill();
    await sleep(300);
    await server.start();
    say(`kill ${k}: restarted, healthy`);
  }
  const tally = await load;
  say(`load done: ${tally.sent} requests; reading every incident back`);
  const back = await readBack(server.url, incidents);
  const views = await viewsCaughtUp(server.url, back.heads, 30_000);
  say("feeding a poisoned record to the projector");
  const poison = await poisonedRecord();

  const acknowledged = [...tally.acknowledged.keys()];
  const lost = acknowledged.filter((id) => !back.stored.has(id)).length;
  const duplicated = [...back.stored.values()].reduce((n, times) => n + (times > 1 ? times - 1 : 0), 0);
  const storedWithoutAnswer = [...back.stored.keys()].filter((id) => !tally.acknowledged.has(id)).length;
  results = {
    date: new Date().toISOString(),
    commit,
    quick,
    durationSeconds: seconds,
    writers,
    incidents: incidentCount,
    kills,
    requests: {
      sent: tally.sent,
      valid: tally.valid + incidentCount,
      duplicate: tally.duplicate,
      invalid: tally.invalid,
      retriedAfterNoAnswer: tally.retriedAfterNoAnswer,
    },
    answers: {
      created201: tally.created201,
      replayed200: tally.replayed200,
      invalid422: tally.invalid422,
      other4xx: tally.other4xx,
      server5xx: tally.server5xx,
      noAnswer: tally.noAnswer,
    },
    events: {
      acknowledged: acknowledged.length,
      stored: back.storedCount,
      lost,
      duplicated,
      storedWithoutAnswer,
    },
    chains: { incidents: incidents.length, ok: back.chainsOk, bad: back.badChains },
    views: { agree: views.agree, disagree: views.disagree, catchUpSeconds: views.seconds },
    poisonedRecord: poison,
    passed:
      lost === 0 &&
      duplicated === 0 &&
      back.badChains.length === 0 &&
      views.disagree.length === 0 &&
      poison.namedTheRecord &&
      poison.goodRecordProjected &&
      tally.unresolved.size === 0 &&
      tally.surprises.length === 0,
  };
  for (const surprise of tally.surprises) say(`unexpected answer: ${surprise}`);
  if (tally.unresolved.size > 0) say(`${tally.unresolved.size} valid requests never got an answer`);
} finally {
  await server.stop();
  if (results?.passed) rmSync(dataDir, { recursive: true, force: true });
  else say(`kept ${dataDir} (server.log, data) for a look`);
}

const previous = readResults(outDir);
const merged: Results = previous ?? {
  benchmark: "incident-ledger",
  quick,
  date: results.date,
  commit: results.commit,
  machine: machine(),
  durationSeconds: 0,
  rows: [],
};
merged.soak = results;
writeResults(outDir, merged, renderResults(merged));
// A full soak into the default directory is what bench/README.md shows.
if (!quick && values.out === undefined) writeReadmeBlock("soak", renderSoak(results, false));
const e = results.events;
process.stdout.write(
  `soak ${results.passed ? "passed" : "FAILED"}: ${results.requests.sent} requests, ${e.acknowledged} acknowledged, ${e.stored} stored, ${e.lost} lost, ${e.duplicated} duplicated, ${results.answers.server5xx} 5xx, chains ${results.chains.ok}/${results.chains.incidents}, views ${results.views.agree}/${results.chains.incidents}; written to ${outDir}\n`,
);
process.exit(results.passed ? 0 : 1);
