import { Agent, request } from "node:http";
import autocannon from "autocannon";
import { reportEnvelope } from "../lib/fixtures.js";
import { percentile } from "../lib/stats.js";

const LATENCY_RESOLUTION_MS = 1;

/**
 * The external load generator: a process of its own running autocannon against one server (the
 * archive or the bare one), so neither server shares its event loop with the client. Takes a
 * JSON `LoadSpec` as its argument, prints a JSON `LoadResult`.
 *
 * With `lagProbe`, it also measures projection lag from outside: every acknowledged append to
 * one of the probed incidents is noted with its version and the time the answer arrived; a
 * poller per probed incident, busy only while such an append is pending, GETs the summary until
 * its ETag reaches that version. Lag = first such answer − acknowledgement: an upper bound,
 * late by at most one poll round trip (reported as `pollMs`).
 */
export interface LoadSpec {
  url: string;
  connections: number;
  seconds: number;
  kind: "append" | "read";
  incidents: string[];
  /** Set: every append carries a fresh client eventId with this prefix. */
  eventIdPrefix?: string;
  token?: string;
  /** How many of `incidents` (the first ones) to probe for projection lag. */
  lagProbe?: number;
  /** Set: report every acknowledged append as [incidentId, version, wall-clock ms of the answer]. */
  recordAcks?: boolean;
}

export interface LoadResult {
  throughput: number;
  p50: number;
  p99: number;
  count: number;
  /** Upper bounds: acknowledgement → answer of the first poll that showed the version. */
  lags?: number[];
  /** Lower bounds: acknowledgement → sending of that poll (0 if it was sent before). */
  lagFloors?: number[];
  pollMs?: number;
  /** With `recordAcks`: [incidentId, version, epoch ms with a fraction] per 201. */
  acks?: [string, number, number][];
}

export async function generate(spec: LoadSpec): Promise<LoadResult> {
  const { incidents } = spec;
  let next = 0;
  const probed = new Set(incidents.slice(0, spec.lagProbe ?? 0));
  const probe = probed.size > 0 ? lagProbe(spec, probed) : undefined;
  // Wall-clock times (not performance.now) so that another process can line them up with its own.
  const acks: [string, number, number][] = [];
  const onResponse =
    probe || spec.recordAcks
      ? (status: number, body: string) => {
          if (spec.recordAcks && status === 201) {
            const { incidentId, version } = JSON.parse(body) as { incidentId: string; version: number };
            acks.push([incidentId, version, performance.timeOrigin + performance.now()]);
          }
          probe?.onResponse(status, body);
        }
      : undefined;
  const headers: Record<string, string> = spec.token ? { authorization: `Bearer ${spec.token}` } : {};
  const requests =
    spec.kind === "read"
      ? [
          {
            method: "GET",
            setupRequest: (req: { path?: string }) => ({
              ...req,
              method: "GET",
              path: `/incidents/${incidents[next++ % incidents.length]}`,
            }),
          },
        ]
      : [
          {
            method: "POST",
            setupRequest: (req: { headers?: Record<string, string> }) => {
              const i = next++;
              const eventId = spec.eventIdPrefix ? `${spec.eventIdPrefix}-${i}` : undefined;
              return {
                ...req,
                method: "POST",
                path: `/incidents/${incidents[i % incidents.length]}/events`,
                headers: { ...req.headers, ...headers, "content-type": "application/json" },
                body: JSON.stringify(reportEnvelope(i, eventId)),
              };
            },
            ...(onResponse ? { onResponse } : {}),
          },
        ];
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    timeout: 30,
    requests,
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${spec.kind} against ${spec.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts (${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  const out: LoadResult = {
    throughput: result["2xx"] / result.duration,
    // autocannon records whole milliseconds: under 1 ms reads 0. Counted as its resolution, so
    // that a ratio stays defined; such a figure means "1 ms or less".
    p50: Math.max(result.latency.p50, LATENCY_RESOLUTION_MS),
    p99: Math.max(result.latency.p99, LATENCY_RESOLUTION_MS),
    count: result["2xx"],
    ...(spec.recordAcks ? { acks } : {}),
  };
  if (probe) {
    const { lags, floors, polls } = await probe.finish();
    return { ...out, lags, lagFloors: floors, pollMs: percentile(polls, 50) };
  }
  return out;
}

function lagProbe(spec: LoadSpec, probed: Set<string>) {
  const agent = new Agent({ keepAlive: true, maxSockets: probed.size });
  const url = new URL(spec.url);
  const pending = new Map<string, { version: number; at: number }[]>([...probed].map((id) => [id, []]));
  const wake = new Map<string, () => void>();
  const lags: number[] = [];
  const floors: number[] = [];
  const polls: number[] = [];
  let stopping = false;

  const version = (incidentId: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        { agent, host: url.hostname, port: url.port, path: `/incidents/${incidentId}` },
        (res) => {
          res.resume();
          res.on("end", () => resolve(Number(String(res.headers.etag ?? "").replaceAll('"', ""))));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end();
    });

  const poller = async (incidentId: string) => {
    const queue = pending.get(incidentId) as { version: number; at: number }[];
    for (;;) {
      if (queue.length === 0) {
        if (stopping) return;
        await new Promise<void>((resolve) => wake.set(incidentId, resolve));
        continue;
      }
      const sent = performance.now();
      const seen = await version(incidentId);
      const at = performance.now();
      polls.push(at - sent);
      while (queue.length > 0 && (queue[0] as { version: number }).version <= seen) {
        const acked = (queue.shift() as { at: number }).at;
        lags.push(Math.max(0, at - acked));
        floors.push(Math.max(0, sent - acked));
      }
    }
  };
  const running = [...probed].map(poller);

  return {
    onResponse(status: number, body: string) {
      if (status !== 201) return;
      const { incidentId, version: v } = JSON.parse(body) as { incidentId: string; version: number };
      const queue = pending.get(incidentId);
      if (!queue) return;
      queue.push({ version: v, at: performance.now() });
      queue.sort((a, b) => a.version - b.version);
      wake.get(incidentId)?.();
      wake.delete(incidentId);
    },
    async finish() {
      stopping = true;
      for (const resolve of wake.values()) resolve();
      const timeout = new Promise((_, reject) =>
        setTimeout(() => reject(new Error("projection did not catch up within 60 s")), 60_000).unref(),
      );
      await Promise.race([Promise.all(running), timeout]);
      agent.destroy();
      return { lags, floors, polls };
    },
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() as string)) {
  const spec = JSON.parse(process.argv[2] as string) as LoadSpec;
  process.stdout.write(`${JSON.stringify(await generate(spec))}\n`);
  process.exit(0);
}
