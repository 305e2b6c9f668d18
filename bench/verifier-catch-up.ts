import { parseVerifierKey } from "../events/transparency/note.js";
import { startLocalServer } from "../functions/local/server.js";
import { silentLogger } from "../functions/logger.js";
import { httpSource } from "../scripts/verify/source.js";
import { verifyLog } from "../scripts/verify/verify-log.js";
import { call, casualties, opened, post, TOKEN } from "../test/support/archive.js";

/**
 * What a verifier downloads to catch up on 10,000 new events (issue 11, "Measure it"):
 * an archive of 1,000 events verified once (the state), then 10,000 more — half on the same
 * 100 incidents, half on 100 new ones — checked incrementally and in full.
 * Run: npx tsx bench/verifier-catch-up.ts
 */
async function append(base: string, id: string, count: number, open: boolean): Promise<void> {
  if (open) {
    const first = await post(base, id, opened());
    if (first.status !== 201) throw new Error(`open ${id}: ${first.status}`);
  }
  let left = count - (open ? 1 : 0);
  while (left > 0) {
    const n = Math.min(25, left);
    const batch = Array.from({ length: n }, (_, i) =>
      casualties({ killed: { value: left - i, qualifier: "at-least" } }, `Source ${i % 5}`),
    );
    const answer = await post(base, id, n === 1 ? batch[0] : { events: batch });
    if (answer.status !== 201) throw new Error(`append ${id}: ${answer.status}`);
    left -= n;
  }
}

/** fetch, tallying the bytes of each kind of route the verifier reads. */
function tallied() {
  const bytes: Record<string, number> = {};
  const get = (async (input: string | URL | Request, init?: RequestInit) => {
    const answer = await fetch(input, init);
    const body = new Uint8Array(await answer.arrayBuffer());
    const path = new URL(String(input)).pathname;
    const kind = path.startsWith("/log/tile/entries")
      ? "entryBundles"
      : path.startsWith("/log/tile/")
        ? "hashTiles"
        : path.startsWith("/log/")
          ? path.slice(5)
          : "incidentEvents";
    bytes[kind] = (bytes[kind] ?? 0) + body.length;
    return new Response(body, { status: answer.status, headers: answer.headers });
  }) as typeof fetch;
  return { get, bytes };
}

async function logged(base: string, size: number): Promise<void> {
  for (;;) {
    const text = (await call(base, "GET", "/log/checkpoint")).body as string;
    if (typeof text === "string" && Number(text.split("\n")[1]) >= size) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const archive = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  token: TOKEN,
  log: silentLogger,
  writer: "bench",
});
try {
  const old = Array.from({ length: 100 }, (_, i) => `catch-up-old-${i}`);
  const fresh = Array.from({ length: 100 }, (_, i) => `catch-up-new-${i}`);
  await Promise.all(old.map((id) => append(archive.url, id, 10, true)));
  await logged(archive.url, 1_000);
  const logKey = parseVerifierKey(((await call(archive.url, "GET", "/log/vkey")).body as string).trim());
  const firstSource = httpSource(archive.url);
  const first = await verifyLog({ source: firstSource, logKey });

  await Promise.all([
    ...old.map((id) => append(archive.url, id, 50, false)),
    ...fresh.map((id) => append(archive.url, id, 50, true)),
  ]);
  await logged(archive.url, 11_000);

  const fullTally = tallied();
  const fullSource = httpSource(archive.url, fullTally.get);
  let t = performance.now();
  const full = await verifyLog({ source: fullSource, logKey, state: first.state });
  const fullMs = performance.now() - t;
  const incTally = tallied();
  const incSource = httpSource(archive.url, incTally.get);
  t = performance.now();
  const inc = await verifyLog({ source: incSource, logKey, state: first.state, incremental: true });
  const incMs = performance.now() - t;
  console.log(
    JSON.stringify(
      {
        firstRun: { treeSize: first.checkpoint.size, bytes: firstSource.bytesRead?.() },
        catchUp: {
          from: first.checkpoint.size,
          to: inc.checkpoint.size,
          incremental: {
            leaves: inc.leaves,
            events: inc.events,
            bytes: incSource.bytesRead?.(),
            byRoute: incTally.bytes,
            ms: Math.round(incMs),
          },
          full: {
            leaves: full.leaves,
            events: full.events,
            bytes: fullSource.bytesRead?.(),
            byRoute: fullTally.bytes,
            ms: Math.round(fullMs),
          },
        },
      },
      null,
      2,
    ),
  );
} finally {
  await archive.close();
}
