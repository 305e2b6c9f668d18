/**
 * Measures the transparency log as a user meets it (`npx tsx test/log/measure-log.ts [seconds]`):
 *
 * 1. Sequencing against the append rate: 16 writers post single events over HTTP to an on-disk
 *    archive for N seconds, once with the log running and once without (the baseline): appends/s
 *    both ways, how far the signed checkpoint trailed the acknowledged events while they wrote,
 *    and how long after the last acknowledgement every event was in a signed checkpoint.
 * 2. Catch-up: one sequencer pass over 10,000 events stored while no sequencer ran.
 * 3. Proof latency: GET …/events/{eventId}/proof against GET …/events?limit=1 on the same server.
 * 4. What a monitor downloads to follow 10,000 new events through the tiles: checkpoint,
 *    consistency proof, entry bundles (the verifier's full figure is in the README's "The
 *    transparency log" section).
 *
 * Not a test: figures depend on the machine. Ratios against a baseline run side by side.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeTileIndex, TILE_WIDTH } from "../../events/transparency/tiles.js";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/log.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { seedCommits } from "../export/seed-archive.js";
import { casualties, opened, post, TOKEN } from "../support/archive.js";

const seconds = Number(process.argv[2] ?? 8);
const WRITERS = 16;

async function withServer<T>(sequenceLog: boolean, run: (server: LocalServer) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), "measure-log-"));
  const server = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    dataDir,
    token: TOKEN,
    log: silentLogger,
    sequenceLog,
  });
  try {
    return await run(server);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

async function appendRun(server: LocalServer, logOn: boolean) {
  const incidents = Array.from({ length: WRITERS }, (_, i) => `measure-${i}`);
  for (const id of incidents) await post(server.url, id, opened());
  let acked = incidents.length;
  let lastAck = performance.now();
  const trail: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  const sampler = setInterval(async () => {
    if (!logOn) return;
    // Events acknowledged before the read began that the newest checkpoint does not hold yet.
    const before = acked;
    const size = (await server.ledger.log.latestCheckpoint())?.size ?? 0;
    trail.push(Math.max(0, before - size));
  }, 100);
  await Promise.all(
    incidents.map(async (id, w) => {
      let i = 0;
      while (performance.now() < deadline) {
        const answer = await post(
          server.url,
          id,
          casualties({ killed: { value: i++, qualifier: "exact" } }, `w${w}`),
        );
        if (answer.status !== 201) throw new Error(`append answered ${answer.status}`);
        acked += 1;
        lastAck = performance.now();
      }
    }),
  );
  clearInterval(sampler);
  const appendsPerSecond = (acked - incidents.length) / seconds;
  if (!logOn) return { appendsPerSecond, acked };
  await server.logFeed.idle();
  let size = (await server.ledger.log.latestCheckpoint())?.size ?? 0;
  while (size < acked) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    size = (await server.ledger.log.latestCheckpoint())?.size ?? 0;
  }
  const drainMs = performance.now() - lastAck;
  return {
    appendsPerSecond,
    acked,
    checkpointSize: size,
    trailP50: percentile(trail, 50),
    trailMax: Math.max(...trail),
    drainMs,
  };
}

async function proofLatency(server: LocalServer) {
  const events = [];
  for (let i = 0; i < 4; i++) {
    const page = await fetch(`${server.url}/incidents/measure-${i}/events?limit=50`);
    events.push(...((await page.json()) as { items: { incidentId: string; eventId: string }[] }).items);
  }
  const time = async (path: string) => {
    const started = performance.now();
    const answer = await fetch(`${server.url}${path}`);
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status}`);
    return performance.now() - started;
  };
  const proof: number[] = [];
  const read: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const e of events) {
      proof.push(await time(`/incidents/${e.incidentId}/events/${e.eventId}/proof`));
      read.push(await time(`/incidents/${e.incidentId}/events?limit=1`));
    }
  }
  return {
    requests: proof.length,
    proofP50: percentile(proof, 50),
    proofP95: percentile(proof, 95),
    readP50: percentile(read, 50),
    readP95: percentile(read, 95),
  };
}

async function catchUpRun() {
  return withServer(true, async (server) => {
    const db = createDynamoClient(server.dynamoEndpoint);
    const seeded = await seedCommits(db, server.tables.events, { incidents: 100, eventsPerIncident: 100 });
    db.destroy();
    const started = performance.now();
    const pass = await server.logWriter.pass();
    const ms = performance.now() - started;
    // A monitor that holds the checkpoint of the first 10 leaves follows the 10,000 new ones.
    const from = 10;
    let bytes = 0;
    const get = async (path: string) => {
      const answer = await fetch(`${server.url}${path}`);
      bytes += (await answer.arrayBuffer()).byteLength;
    };
    await get("/log/checkpoint");
    await get(`/log/consistency?from=${from}&to=${pass.size}`);
    for (let tile = Math.floor(from / TILE_WIDTH); tile * TILE_WIDTH < pass.size; tile++) {
      const width = Math.min(TILE_WIDTH, pass.size - tile * TILE_WIDTH);
      await get(`/log/tile/entries/${encodeTileIndex(tile)}${width < TILE_WIDTH ? `.p/${width}` : ""}`);
    }
    return { seeded, size: pass.size, ms, leavesPerSecond: (pass.added / ms) * 1000, monitorBytes: bytes };
  });
}

const baseline = await withServer(false, (server) => appendRun(server, false));
const withLog = await withServer(true, async (server) => ({
  ...(await appendRun(server, true)),
  ...(await proofLatency(server)),
}));
const catchUp = await catchUpRun();
const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
console.log(
  JSON.stringify(
    {
      writers: WRITERS,
      seconds,
      appendsPerSecondWithoutLog: round(baseline.appendsPerSecond),
      appendsPerSecondWithLog: round(withLog.appendsPerSecond),
      ratio: round(withLog.appendsPerSecond / baseline.appendsPerSecond, 2),
      checkpointTrailsAckedBy: { p50: withLog.trailP50, max: withLog.trailMax },
      allInACheckpointMsAfterLastAck: round(withLog.drainMs ?? Number.NaN),
      proof: {
        requests: withLog.requests,
        p50Ms: round(withLog.proofP50, 2),
        p95Ms: round(withLog.proofP95, 2),
        readEventsP50Ms: round(withLog.readP50, 2),
        ratioP50: round(withLog.proofP50 / withLog.readP50, 2),
      },
      catchUp: {
        events: catchUp.seeded,
        ms: round(catchUp.ms),
        leavesPerSecond: round(catchUp.leavesPerSecond),
        monitorBytesFor10kNewLeaves: catchUp.monitorBytes,
      },
    },
    null,
    2,
  ),
);
