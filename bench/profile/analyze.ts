import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by
 * package or source directory, so "what is slow, and where" reads off one screen.
 * Usage: tsx bench/profile/analyze.ts <file.cpuprofile | directory (newest file)> [top]
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export function where(url: string): string {
  if (!url) return "(native/idle)";
  const path = url.replace(/^file:\/\//, "");
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1] as string;
  if (path.startsWith("node:")) return "node core";
  const local = /\/(events|functions|bench)\/(.*)$/.exec(path);
  return local ? `${local[1]}/${local[2]}` : path;
}

function selfTimes(profile: Profile) {
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = selfMs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    const place = where(url);
    const fn = `${functionName || "(anonymous)"}  ${place}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
    byPlace.set(place, (byPlace.get(place) ?? 0) + ms);
  }
  const total = [...byPlace.values()].reduce((a, b) => a + b, 0);
  return { total, byFunction, byPlace };
}

export function analyze(profile: Profile, top = 25) {
  const { total, byFunction, byPlace } = selfTimes(profile);
  const rank = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([k, ms]) => `${ms.toFixed(0).padStart(7)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${k}`,
      );
  return { totalMs: total, places: rank(byPlace), functions: rank(byFunction) };
}

/** Where `b` spends more self time than `a` (two runs of the same work: the subject and its baseline). */
export function diff(a: Profile, b: Profile, top = 25) {
  const sa = selfTimes(a);
  const sb = selfTimes(b);
  const delta = (ma: Map<string, number>, mb: Map<string, number>) =>
    [...new Set([...ma.keys(), ...mb.keys()])]
      .map((k) => [k, (mb.get(k) ?? 0) - (ma.get(k) ?? 0)] as const)
      .sort((x, y) => y[1] - x[1])
      .slice(0, top)
      .map(([k, ms]) => `${ms >= 0 ? "+" : ""}${ms.toFixed(0).padStart(6)} ms  ${k}`);
  return {
    totals: `${sa.total.toFixed(0)} ms → ${sb.total.toFixed(0)} ms`,
    places: delta(sa.byPlace, sb.byPlace),
    functions: delta(sa.byFunction, sb.byFunction),
  };
}

/** A directory holds one profile per thread (tsx adds a loader thread): take the biggest, the main one. */
function mainProfile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(path, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!files[0]) throw new Error(`no .cpuprofile in ${path}`);
  return files[0];
}

const load = (path: string) => JSON.parse(readFileSync(mainProfile(resolve(path)), "utf8")) as Profile;

if (process.argv[1]?.endsWith("analyze.ts") && process.argv[2] === "--diff") {
  // tsx bench/profile/analyze.ts --diff <baseline profile|dir> <subject profile|dir> [top]
  const result = diff(
    load(process.argv[3] ?? "."),
    load(process.argv[4] ?? "."),
    Number(process.argv[5] ?? 25),
  );
  process.stdout.write(
    `self time ${result.totals}\n\nmore self time by place\n${result.places.join("\n")}\n\nmore self time by function\n${result.functions.join("\n")}\n`,
  );
} else if (process.argv[1]?.endsWith("analyze.ts")) {
  const path = resolve(process.argv[2] ?? ".");
  // npm start runs three threads (request, store, feed) plus tsx's loader threads: one line each,
  // busy time first, so "which thread is the bottleneck" reads off before the biggest one's detail.
  if (statSync(path).isDirectory()) process.stdout.write(`${threadLines(path).join("\n")}\n\n`);
  const file = mainProfile(path);
  const result = analyze(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(process.argv[3] ?? 25));
  process.stdout.write(
    `${file}: ${result.totalMs.toFixed(0)} ms sampled\n\nself time by place\n${result.places.join("\n")}\n\nself time by function\n${result.functions.join("\n")}\n`,
  );
}

/** Each profile in a directory: its busy (non-idle) time and the places that take most of it. */
function threadLines(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()
    .map((f) => {
      const { total, byPlace } = selfTimes(JSON.parse(readFileSync(join(dir, f), "utf8")) as Profile);
      const idle = byPlace.get("(native/idle)") ?? 0;
      const top = [...byPlace]
        .filter(([place]) => place !== "(native/idle)")
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([place, ms]) => `${place} ${ms.toFixed(0)}`)
        .join(", ");
      return `${f}: busy ${(total - idle).toFixed(0)} of ${total.toFixed(0)} ms (${top})`;
    });
}
