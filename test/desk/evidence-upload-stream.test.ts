import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { BROWSER_ACCEPT, call, TOKEN } from "../support/archive.js";
import { startDeskArchive, WRITER } from "./desk-kit.js";

/**
 * The desk's upload streams end to end: a large file posted as the browser posts the form
 * (multipart, the file part before the fields the event needs) is parsed as it arrives, hashed
 * and staged where the evidence store stages every upload, and kept only once the event is
 * checked. The archive runs in this process, so its memory is this process's; the client is
 * curl in its own, reading the file from disk.
 */

const MiB = 1024 * 1024;
const SIZE = 64 * MiB;
const LIMIT = 72 * MiB;
/** What the archive's resident memory may grow by while it receives the file: far below its size. */
const GROWTH = 32 * MiB;
/**
 * What its ArrayBuffers may grow by: they count the socket's chunks already let go but not yet
 * collected, which V8 frees when it likes; still short of the file, which buffering holds whole.
 */
const BUFFERS_GROWTH = 48 * MiB;
const INCIDENT = "desk-stream-2022-04-08";
const run = promisify(execFile);

let archive: LocalServer;
let work: string;
let evidenceDir: string;
let big: { path: string; sha256: string };
/** Another file, for the refusals: the big one is held once the first test stores it. */
let other: { path: string; sha256: string };
let cookie: string;

/** A file of random bytes written in 1 MiB pieces, and its SHA-256. */
async function randomFile(name: string, size: number): Promise<{ path: string; sha256: string }> {
  const path = join(work, name);
  const out = createWriteStream(path);
  const hash = createHash("sha256");
  for (let left = size; left > 0; left -= MiB) {
    const piece = randomBytes(Math.min(MiB, left));
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(resolve));
  return { path, sha256: hash.digest("hex") };
}

/** The session cookie the sign-in page sets for a token. */
async function signedIn(token: string): Promise<string> {
  const answer = await fetch(`${archive.url}/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: archive.url },
    body: new URLSearchParams({ token, next: "/desk" }),
    redirect: "manual",
  });
  expect(answer.status).toBe(303);
  return answer.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

const formPath = `/desk/incidents/${INCIDENT}/evidence`;

/** The evidence form's anti-forgery token, from the page as served to the session. */
async function formToken(): Promise<string> {
  const html = await (await fetch(`${archive.url}${formPath}`, { headers: { cookie } })).text();
  const token = /name="formToken" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error("no form token on the evidence form");
  return token;
}

type Part = [name: string, value: string] | [name: string, { file: string; type: string }];

/** The form posted by curl, its parts in the order given, the file read from disk as sent. */
async function postForm(parts: Part[]): Promise<{ status: number; location: string }> {
  const args = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}", "-X", "POST"];
  args.push("-H", `cookie: ${cookie}`, "-H", `origin: ${archive.url}`, "-H", "expect:");
  for (const [name, value] of parts) {
    if (typeof value === "string") args.push("--form-string", `${name}=${value}`);
    else args.push("-F", `${name}=@${value.file};type=${value.type}`);
  }
  args.push(`${archive.url}${formPath}`);
  const { stdout } = await run("curl", args);
  const [status = "0", location = ""] = stdout.trim().split(" ");
  return { status: Number(status), location };
}

/** The evidence store's staging files (`.incoming-…`) at this moment. */
const staging = () => readdirSync(evidenceDir).filter((name) => name.startsWith(".incoming-"));

/** Runs `act` while watching the process's memory and the store's staging place. */
async function watched<T>(act: () => Promise<T>) {
  const before = process.memoryUsage();
  const peak = { rss: before.rss, arrayBuffers: before.arrayBuffers };
  let staged = false;
  const timer = setInterval(() => {
    const now = process.memoryUsage();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
    if (staging().length > 0) staged = true;
  }, 10);
  try {
    const result = await act();
    return {
      result,
      staged,
      growth: { rss: peak.rss - before.rss, arrayBuffers: peak.arrayBuffers - before.arrayBuffers },
    };
  } finally {
    clearInterval(timer);
  }
}

/** The incident's events as stored. */
async function events(): Promise<Record<string, unknown>[]> {
  const page = (await (await fetch(`${archive.url}/incidents/${INCIDENT}/events`)).json()) as {
    items: Record<string, unknown>[];
  };
  return page.items;
}
const held = async (sha256: string) => (await fetch(`${archive.url}/evidence/${sha256}`)).status;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ledger-desk-stream-"));
  const dataDir = join(work, "data");
  evidenceDir = join(dataDir, "evidence");
  archive = await startDeskArchive({ evidenceMax: LIMIT, dataDir });
  const opened = await call(
    archive.url,
    "POST",
    `/incidents/${INCIDENT}/events`,
    {
      type: "IncidentOpened",
      source: { publisher: "Associated Press" },
      data: {
        title: "Strike on a station",
        kind: "missile-strike",
        location: { name: "Station", country: "UA" },
      },
    },
    { authorization: `Bearer ${TOKEN}` },
  );
  expect(opened.status).toBe(201);
  [big, other, cookie] = await Promise.all([
    randomFile("video.mp4", SIZE),
    randomFile("other.mp4", 16 * MiB),
    signedIn(WRITER.token),
  ]);
}, 120_000);

afterAll(async () => {
  await archive?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the desk's upload, streamed", () => {
  it(`stores a ${SIZE / MiB} MiB file under its own SHA-256, the archive's memory growing by far less than it`, async () => {
    const { result, staged, growth } = await watched(async () =>
      postForm([
        ["formToken", await formToken()],
        ["eventId", "desk-stream-stored-1"],
        ["file", { file: big.path, type: "video/mp4" }],
        ["data.kind", "video"],
        ["data.title", "Video of the strike"],
        ["source.publisher", "Associated Press"],
      ]),
    );
    console.info(
      `desk upload of ${SIZE / MiB} MiB: rss +${(growth.rss / MiB).toFixed(1)} MiB, arrayBuffers +${(growth.arrayBuffers / MiB).toFixed(1)} MiB`,
    );
    expect(result.status).toBe(303);
    expect(new URL(result.location).pathname).toBe(`/view/${INCIDENT}`);
    const eventId = new URL(result.location).hash.replace(/^#ev-/, "");
    const stored = (await events()).find((e) => e.eventId === eventId);
    expect(stored).toMatchObject({
      type: "EvidenceCaptured",
      recordedBy: WRITER.name,
      data: { sha256: big.sha256, size: SIZE, mediaType: "video/mp4", kind: "video" },
    });
    expect(staged).toBe(true);
    expect(staging()).toEqual([]);
    expect(growth.arrayBuffers).toBeLessThan(BUFFERS_GROWTH);
    expect(growth.rss).toBeLessThan(GROWTH);
    // The bytes kept are the file's: hashed again from the store's own file.
    const kept = createHash("sha256");
    for await (const chunk of createReadStream(join(evidenceDir, big.sha256))) kept.update(chunk);
    expect(kept.digest("hex")).toBe(big.sha256);
    const served = await fetch(`${archive.url}/evidence/${big.sha256}`, { headers: { range: "bytes=0-0" } });
    expect(served.status).toBe(206);
    expect(served.headers.get("content-range")).toBe(`bytes 0-0/${SIZE}`);
  });

  it("stages a file sent before the fields it needs, and discards it when the event is refused", async () => {
    const before = (await events()).length;
    const { result, staged } = await watched(async () =>
      postForm([
        ["formToken", await formToken()],
        ["eventId", "desk-stream-refused-1"],
        ["file", { file: other.path, type: "video/mp4" }],
        // No kind and no publisher: the event is refused once the file has been read.
        ["data.title", "Refused video"],
      ]),
    );
    expect(result.status).toBe(422);
    expect(staged, "the file was staged in the evidence store's own staging place").toBe(true);
    expect(staging()).toEqual([]);
    expect(await held(other.sha256)).toBe(404);
    expect((await events()).length).toBe(before);
  });

  it("discards a file sent before a missing form token (403)", async () => {
    const { result, staged } = await watched(() =>
      postForm([
        ["eventId", "desk-stream-forged-1"],
        ["file", { file: other.path, type: "video/mp4" }],
        ["data.kind", "video"],
        ["source.publisher", "Forgery Weekly"],
      ]),
    );
    expect(result.status).toBe(403);
    expect(staged).toBe(true);
    expect(staging()).toEqual([]);
    expect(await held(other.sha256)).toBe(404);
  });

  it("leaves nothing staged when the connection drops mid-file", async () => {
    const boundary = "----desk-stream-dropped";
    const head = [
      `--${boundary}\r\nContent-Disposition: form-data; name="formToken"\r\n\r\n${await formToken()}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\n`,
      "Content-Type: video/mp4\r\n\r\n",
    ].join("");
    const req = request(`${archive.url}${formPath}`, {
      method: "POST",
      headers: {
        cookie,
        origin: archive.url,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(16 * MiB + 4096),
      },
    });
    req.on("error", () => undefined);
    // An answer before the drop (the server no longer reading) ends the sending: the test fails, not hangs.
    let answered = false;
    req.on("response", () => {
      answered = true;
      req.emit("drain");
    });
    req.write(head);
    let sent = 0;
    let saw = false;
    for await (const chunk of createReadStream(other.path, { highWaterMark: MiB })) {
      if (answered) break;
      if (!req.write(chunk)) await new Promise<void>((resolve) => req.once("drain", () => resolve()));
      sent += (chunk as Buffer).byteLength;
      if (staging().length > 0) saw = true;
      if (sent >= 8 * MiB && saw) break;
    }
    expect(answered).toBe(false);
    expect(saw, "the file was being staged").toBe(true);
    req.destroy();
    for (let i = 0; i < 100 && staging().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(staging()).toEqual([]);
    expect(await held(other.sha256)).toBe(404);
  });
  it("answers a body that grows past the limit unannounced (chunked) with 413, after reading it, keeping nothing", async () => {
    const boundary = "----desk-stream-chunked";
    const req = request(`${archive.url}${formPath}`, {
      method: "POST",
      headers: { cookie, origin: archive.url, "content-type": `multipart/form-data; boundary=${boundary}` },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
    });
    req.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="formToken"\r\n\r\n${await formToken()}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="video.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    // Both files as one: past the limit by some MiB, well within what is drained. An answer
    // before the body is sent (the server no longer reading) ends the sending.
    let early = false;
    void answered.then(() => {
      early = true;
      req.emit("drain");
    });
    for (const path of [big.path, other.path])
      for await (const chunk of createReadStream(path, { highWaterMark: MiB })) {
        if (early) break;
        if (!req.write(chunk)) await new Promise<void>((resolve) => req.once("drain", () => resolve()));
      }
    expect(early, "answered only once the whole body was sent").toBe(false);
    req.end(`\r\n--${boundary}--\r\n`);
    const answer = await answered;
    expect(answer.status).toBe(413);
    expect(answer.body).toContain("File must be at most 72 MiB: nothing was stored");
    expect(staging()).toEqual([]);
    expect(await held(other.sha256)).toBe(404);
  });
  it("refuses a form that ends mid-file (no closing boundary) with 400, nothing left staged", async () => {
    const boundary = "----desk-stream-cut";
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="formToken"\r\n\r\n${await formToken()}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      randomBytes(2 * MiB),
    ]);
    const answer = await fetch(`${archive.url}${formPath}`, {
      method: "POST",
      headers: {
        accept: BROWSER_ACCEPT,
        cookie,
        origin: archive.url,
        "content-type": `multipart/form-data; boundary=${boundary}`,
      },
      body,
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await answer.text()).toContain(
      "<code>(body)</code>: must be the desk&#39;s upload form (multipart/form-data)",
    );
    expect(staging()).toEqual([]);
  });
  it("refuses a text field longer than the form's room for text by name, keeping nothing", async () => {
    const bytes = randomBytes(4096);
    const form = new FormData();
    form.set("formToken", await formToken());
    form.set("eventId", "desk-stream-long-title-1");
    form.set("file", new Blob([bytes], { type: "image/png" }), "photo.png");
    form.set("data.kind", "image");
    form.set("data.title", "t".repeat(70 * 1024));
    form.set("source.publisher", "Associated Press");
    const answer = await fetch(`${archive.url}${formPath}`, {
      method: "POST",
      headers: { cookie, origin: archive.url },
      body: form,
    });
    expect(answer.status).toBe(422);
    expect(await answer.text()).toContain("Title must be at most 64 KiB of text");
    expect(staging()).toEqual([]);
    expect(await held(createHash("sha256").update(bytes).digest("hex"))).toBe(404);
  });
});
