import { execFile, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * Evidence upload throughput and server memory (issue 21, "Measure"):
 *   npx tsx bench/evidence-upload.ts [--mb 100]
 * The same file is sent with curl (`--data-binary @file`) to
 *   1. a bare Node HTTP server that only hashes the body and writes it to a file (fsync'd),
 *   2. `npm start`'s POST /evidence (streamed, hashed, written, fsync'd, linked),
 *   3. `npm start`'s desk, as the evidence form posts it (`curl -F`: multipart/form-data, the
 *      file part before the fields, a signed-in session), another file of the same size,
 * in the same run; the ratio of their throughputs is the figure (goal ≥ 0.7×). The archive's
 * RSS is sampled from /proc while it receives (goal: bounded, independent of the file size).
 */
const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const mbArg = process.argv.indexOf("--mb");
const MB = mbArg >= 0 ? Number(process.argv[mbArg + 1]) : 100;
const TOKEN = "bench-evidence-token-0123456789";

const work = mkdtempSync(join(tmpdir(), "ledger-bench-evidence-"));
const file = join(work, "upload.bin");
/** The desk's file: other bytes, so its upload is a new blob as the API's was. */
const deskFile = join(work, "desk.bin");

async function makeFile(path: string): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < MB; i++)
    if (!out.write(randomBytes(1024 * 1024))) await new Promise((r) => out.once("drain", () => r(undefined)));
  await new Promise<void>((resolve) => out.end(resolve));
}

/** curl's own timing of one upload: seconds, and what it sent. */
async function curl(url: string, headers: string[]): Promise<{ seconds: number; status: number }> {
  const args = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-X", "POST"];
  for (const h of headers) args.push("-H", h);
  args.push("--data-binary", `@${file}`, url);
  const { stdout } = await run("curl", args, { maxBuffer: 1024 * 1024 });
  const [status, seconds] = stdout.trim().split(" ");
  return { status: Number(status), seconds: Number(seconds) };
}

/** The evidence form posted as a browser posts it, with the session's cookie and form token. */
async function curlDesk(base: string): Promise<{ seconds: number; status: number }> {
  const incident = "bench-desk-upload-2022";
  const opened = await fetch(`${base}/incidents/${incident}/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({
      type: "IncidentOpened",
      source: { publisher: "Bench" },
      data: { title: "Bench", kind: "missile-strike", location: { name: "Bench", country: "UA" } },
    }),
  });
  if (opened.status !== 201) throw new Error(`opening the incident: ${opened.status}`);
  const signedIn = await fetch(`${base}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    body: new URLSearchParams({ token: TOKEN, next: "/desk" }),
    redirect: "manual",
  });
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const path = `/desk/incidents/${incident}/evidence`;
  const html = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
  const formToken = /name="formToken" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const args = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-X", "POST"];
  args.push("-H", `cookie: ${cookie}`, "-H", `origin: ${base}`, "-H", "expect:");
  args.push("--form-string", `formToken=${formToken}`, "--form-string", "eventId=bench-desk-upload-1");
  args.push("-F", `file=@${deskFile};type=video/mp4`);
  args.push("--form-string", "data.kind=video", "--form-string", "source.publisher=Bench");
  args.push(`${base}${path}`);
  const { stdout } = await run("curl", args, { maxBuffer: 1024 * 1024 });
  const [status, seconds] = stdout.trim().split(" ");
  return { status: Number(status), seconds: Number(seconds) };
}

/** The baseline: hashes and stores, nothing else. */
async function bareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    // The plain Node way: the body piped through the hash into a file stream, then fsync'd.
    const hash = createHash("sha256");
    const path = join(work, `bare-${Date.now()}`);
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(req, tap, createWriteStream(path));
    const out = await open(path, "r+");
    await out.sync();
    await out.close();
    res
      .writeHead(201, { "content-type": "application/json" })
      .end(JSON.stringify({ sha256: hash.digest("hex") }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `npm start` in a child process, as a user runs it (its own DATA_DIR, free ports). */
async function archive(): Promise<{ url: string; pid: number; stop: () => void }> {
  const child = spawn(process.execPath, ["--import", "tsx", "functions/local/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: "0",
      DYNAMO_PORT: "0",
      DATA_DIR: join(work, "data"),
      LEDGER_TOKEN: TOKEN,
      LEDGER_EVIDENCE_MAX: String((MB + 1) * 1024 * 1024),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (c) => {
      output += c;
      const m = /"message":"started","url":"([^"]+)"/.exec(output);
      if (m?.[1]) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`npm start exited ${code}: ${output}`)));
  });
  return { url, pid: child.pid as number, stop: () => child.kill("SIGTERM") };
}

const rssMiB = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

await makeFile(file);
await makeFile(deskFile);
const bare = await bareServer();
// The baseline before and after the archive's run, the faster one counted: a busy machine
// slows whichever runs at a bad moment, and the baseline should not be the one flattered.
const before = await curl(bare.url, ["content-type: application/octet-stream"]);

const server = await archive();
const idle = rssMiB(server.pid);
let peak = idle;
const sampler = setInterval(() => {
  peak = Math.max(peak, rssMiB(server.pid));
}, 50);
const through = await curl(`${server.url}/evidence`, [
  `authorization: Bearer ${TOKEN}`,
  "content-type: application/octet-stream",
]);
const apiPeak = peak;
peak = rssMiB(server.pid);
const deskIdle = peak;
const desk = await curlDesk(server.url);
clearInterval(sampler);
server.stop();
const after = await curl(bare.url, ["content-type: application/octet-stream"]);
await bare.close();
const baseline = before.seconds <= after.seconds ? before : after;

const mbps = (seconds: number) => Math.round((MB / seconds) * 10) / 10;
const result = {
  sizeMiB: MB,
  bare: { status: baseline.status, seconds: baseline.seconds, MiBps: mbps(baseline.seconds) },
  archive: { status: through.status, seconds: through.seconds, MiBps: mbps(through.seconds) },
  ratio: Math.round((baseline.seconds / through.seconds) * 100) / 100,
  archiveRssMiB: { idle: Math.round(idle), peak: Math.round(apiPeak), growth: Math.round(apiPeak - idle) },
  desk: {
    status: desk.status,
    seconds: desk.seconds,
    MiBps: mbps(desk.seconds),
    ofApi: Math.round((through.seconds / desk.seconds) * 100) / 100,
    rssMiB: { idle: Math.round(deskIdle), peak: Math.round(peak), growth: Math.round(peak - deskIdle) },
  },
};
console.log(JSON.stringify(result, null, 2));
rmSync(work, { recursive: true, force: true });
