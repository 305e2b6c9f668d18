import autocannon from "autocannon";
import { reportEnvelope } from "../lib/fixtures.js";

const LATENCY_RESOLUTION_MS = 1;

/**
 * The external load generator: a process of its own running autocannon against one server (the
 * archive or the bare one), so neither server shares its event loop with the client. Takes a
 * JSON `LoadSpec` as its argument, prints a JSON `LoadResult`. A 5xx is counted, not thrown:
 * "no 5xx" is one of the rows; any other failure (a 4xx, a socket error, a timeout) means the
 * run measured something else, and fails it.
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
}

export interface LoadResult {
  throughput: number;
  p50: number;
  p99: number;
  /** Requests answered 2xx. */
  count: number;
  /** Requests answered 5xx. */
  serverErrors: number;
}

export async function generate(spec: LoadSpec): Promise<LoadResult> {
  const { incidents } = spec;
  let next = 0;
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
          },
        ];
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    timeout: 30,
    requests,
  });
  const codes = result.statusCodeStats as Record<string, { count: number }>;
  const serverErrors = Object.entries(codes)
    .filter(([code]) => code.startsWith("5"))
    .reduce((sum, [, stat]) => sum + stat.count, 0);
  if (result.non2xx - serverErrors > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${spec.kind} against ${spec.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts (${JSON.stringify(codes)})`,
    );
  }
  return {
    throughput: result["2xx"] / result.duration,
    // autocannon records whole milliseconds: under 1 ms reads 0. Counted as its resolution, so
    // that a ratio stays defined; such a figure means "1 ms or less".
    p50: Math.max(result.latency.p50, LATENCY_RESOLUTION_MS),
    p99: Math.max(result.latency.p99, LATENCY_RESOLUTION_MS),
    count: result["2xx"],
    serverErrors,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() as string)) {
  const spec = JSON.parse(process.argv[2] as string) as LoadSpec;
  process.stdout.write(`${JSON.stringify(await generate(spec))}\n`);
  process.exit(0);
}
