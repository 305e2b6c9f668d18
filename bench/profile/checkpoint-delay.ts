import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseCheckpoint } from "../../events/transparency/checkpoint.js";
import { parseLeaf } from "../../events/transparency/leaf.js";
import { decodeEntryBundle, entriesPath, TILE_WIDTH } from "../../events/transparency/tiles.js";
import { openedEnvelope } from "../lib/fixtures.js";
import { expectStatus, httpClient } from "../lib/http-client.js";
import { eachLimited } from "../lib/seed.js";
import { percentile } from "../lib/stats.js";
import type { LoadResult, LoadSpec } from "../user/load-generator.js";
import { runScript, sleep, startServer } from "../user/processes.js";

/**
 * How long an acknowledged append waits for a published checkpoint that covers it, under 16
 * writers, on `npm start` (functions/local/main.ts in its own process, fresh on-disk DATA_DIR):
 *
 *   npx tsx bench/profile/checkpoint-delay.ts [seconds=8] [incidents=16]
 *
 * The load generator (autocannon, its own process) notes each 201 with its wall-clock time; this
 * process polls GET /log/checkpoint back to back and notes when each size was first seen. After
 * the load, the leaves are read from the entry bundles to find each acknowledged event's index,
 * and its delay is the first poll answer showing a size above that index, minus its
 * acknowledgement (an upper bound, late by at most one poll round trip; 0 if it was covered
 * before its answer reached the client). Prints one JSON line.
 */
const TOKEN = "bench-checkpoint-delay-token-0123456789";
const seconds = Number(process.argv[2] ?? 8);
const incidentCount = Number(process.argv[3] ?? 16);
const dataDir = mkdtempSync(join(tmpdir(), "ledger-checkpoint-delay-"));
const now = () => performance.timeOrigin + performance.now();

const server = await startServer(
  process.execPath,
  ["--import", "tsx", "functions/local/main.ts"],
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
  const incidents = Array.from({ length: incidentCount }, (_, k) => `checkpoint-delay-${k}`);
  const client = httpClient(server.url, 16);
  await eachLimited(incidents, 16, async (id) =>
    expectStatus(
      await client.send("POST", `/incidents/${id}/events`, JSON.stringify(openedEnvelope()), {
        authorization: `Bearer ${TOKEN}`,
      }),
      201,
    ),
  );
  await server.quiet();

  // Each size the checkpoint reached, with the wall-clock time of the answer that first showed it.
  const seen: { size: number; at: number }[] = [];
  let polling = true;
  const reader = httpClient(server.url, 1);
  const poller = (async () => {
    while (polling) {
      const answer = await reader.send("GET", "/log/checkpoint");
      const at = now();
      const size = parseCheckpoint(`${expectStatus(answer, 200).text.split("\n\n")[0]}\n`).size;
      if (size > (seen.at(-1)?.size ?? -1)) seen.push({ size, at });
    }
  })();
  // Its failure surfaces when awaited below; until then it must not end the process unexplained.
  poller.catch(() => undefined);

  const loadStart = now();
  const spec: LoadSpec = {
    url: server.url,
    connections: 16,
    seconds,
    kind: "append",
    incidents,
    token: TOKEN,
    eventIdPrefix: "checkpoint-delay",
    recordAcks: true,
  };
  const result = JSON.parse(
    (await runScript("bench/user/load-generator.ts", [JSON.stringify(spec)])).trim(),
  ) as LoadResult;
  const loadEnd = now();
  const acks = result.acks ?? [];
  const total = incidents.length + acks.length;
  const drainDeadline = now() + 60_000;
  while ((seen.at(-1)?.size ?? 0) < total && now() < drainDeadline) await sleep(20);
  polling = false;
  await poller;
  const finalSize = seen.at(-1)?.size ?? 0;
  if (finalSize < total) throw new Error(`the checkpoint reached ${finalSize} of ${total} leaves in 60 s`);

  const indexOf = new Map<string, number>();
  for (let tile = 0; tile * TILE_WIDTH < finalSize; tile++) {
    const width = Math.min(TILE_WIDTH, finalSize - tile * TILE_WIDTH);
    // Binary: fetch, not the text client.
    const answer = await fetch(`${server.url}/log/${entriesPath({ index: tile, width })}`);
    if (answer.status !== 200) throw new Error(`entry bundle ${tile}: ${answer.status}`);
    for (const [i, leaf] of decodeEntryBundle(new Uint8Array(await answer.arrayBuffer())).entries()) {
      const { incidentId, version } = parseLeaf(leaf);
      indexOf.set(`${incidentId}#${version}`, tile * TILE_WIDTH + i);
    }
  }
  client.close();
  reader.close();

  const delays = acks.map(([incidentId, version, at]) => {
    const index = indexOf.get(`${incidentId}#${version}`);
    if (index === undefined) throw new Error(`${incidentId} v${version} is acknowledged but not in the log`);
    const covered = seen.find((s) => s.size > index) as { at: number };
    return Math.max(0, covered.at - at);
  });
  const during = seen.filter((s) => s.at >= loadStart && s.at <= loadEnd);
  const gaps = during.slice(1).map((s, i) => s.at - (during[i] as { at: number }).at);
  const lastAck = Math.max(...acks.map((a) => a[2]));
  const grown = (during.at(-1)?.size ?? 0) - (during[0]?.size ?? 0);
  const spanS = ((during.at(-1)?.at ?? 0) - (during[0]?.at ?? 0)) / 1000;
  const ms = (v: number) => Math.round(v);
  process.stdout.write(
    `${JSON.stringify({
      writers: 16,
      incidents: incidents.length,
      seconds,
      appendsPerS: Math.round(result.throughput * 10) / 10,
      appends: acks.length,
      delayMs: {
        p50: ms(percentile(delays, 50)),
        p99: ms(percentile(delays, 99)),
        max: ms(Math.max(...delays)),
      },
      checkpointsDuringLoad: during.length,
      gapBetweenCheckpointsMs: { p50: ms(percentile(gaps, 50)), max: ms(Math.max(0, ...gaps)) },
      checkpointedLeavesPerS: spanS > 0 ? Math.round((grown / spanS) * 10) / 10 : 0,
      allCoveredAfterLastAckMs: ms((seen.find((s) => s.size >= total)?.at ?? 0) - lastAck),
      loadAverage: loadavg().map((v) => Math.round(v * 100) / 100),
    })}\n`,
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
