import { readFileSync } from "node:fs";

/**
 * `node --experimental-websocket --import tsx bench/scale/live-heap.ts <pid> <inspect port>`:
 * what a running Node process still holds once it has collected its garbage. Its RSS says how
 * far V8 let the heap grow before collecting, which on a machine with memory to spare is far
 * past what is alive; this says what is alive. It opens the process's inspector (SIGUSR1, on
 * the port the process was started with `--inspect-port`), asks for a full collection, then
 * reads `process.memoryUsage()` in it. Prints one JSON line (MB).
 */
const pid = Number(process.argv[2]);
const port = Number(process.argv[3]);
if (!(pid > 0 && port > 0)) {
  process.stderr.write("usage: live-heap.ts <pid> <inspect port>\n");
  process.exit(2);
}

const mb = (bytes: number) => Math.round(bytes / 1048576);
const rssMb = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : null;
};

process.kill(pid, "SIGUSR1");
let targets: { webSocketDebuggerUrl: string }[] = [];
for (let i = 0; i < 100 && targets.length === 0; i++) {
  try {
    targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as typeof targets;
  } catch {
    await new Promise((r) => setTimeout(r, 100));
  }
}
const target = targets[0];
if (!target) throw new Error(`no inspector answered on 127.0.0.1:${port} for process ${pid}`);

const socket = new WebSocket(target.webSocketDebuggerUrl);
await new Promise((resolve, reject) => {
  socket.addEventListener("open", resolve);
  socket.addEventListener("error", reject);
});
let lastId = 0;
const answers = new Map<number, (result: unknown) => void>();
socket.addEventListener("message", (m) => {
  const message = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
  if (message.id !== undefined) answers.get(message.id)?.(message.result);
});
const call = (method: string, params: object = {}) =>
  new Promise<unknown>((resolve) => {
    lastId += 1;
    answers.set(lastId, resolve);
    socket.send(JSON.stringify({ id: lastId, method, params }));
  });

const rssBefore = rssMb();
const started = performance.now();
await call("HeapProfiler.collectGarbage");
const gcMs = Math.round(performance.now() - started);
const evaluated = (await call("Runtime.evaluate", {
  expression: "JSON.stringify(process.memoryUsage())",
  returnByValue: true,
})) as { result: { value: string } };
const usage = JSON.parse(evaluated.result.value) as NodeJS.MemoryUsage;
socket.close();
process.stdout.write(
  `${JSON.stringify({
    rssBeforeMb: rssBefore,
    rssAfterMb: rssMb(),
    heapUsedMb: mb(usage.heapUsed),
    heapTotalMb: mb(usage.heapTotal),
    externalMb: mb(usage.external),
    gcMs,
  })}\n`,
);
