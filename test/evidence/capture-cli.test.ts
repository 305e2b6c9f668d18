import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WARCRecord, WARCSerializer } from "warcio";
import yazl from "yazl";
import { call, opened, post, TOKEN } from "../support/archive.js";
import { sha256Of, startEvidenceArchive } from "./evidence-kit.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "ledger-capture-"));
let archive: Awaited<ReturnType<typeof startEvidenceArchive>>;
beforeAll(async () => {
  archive = await startEvidenceArchive();
  expect((await post(archive.server.url, "capture-cli", opened())).status).toBe(201);
});
afterAll(async () => {
  await archive.close();
  rmSync(work, { recursive: true, force: true });
});

const capture = (...args: string[]) =>
  run(process.execPath, ["--import", "tsx", "scripts/capture/main.ts", ...args], {
    cwd: root,
    env: { ...process.env, LEDGER_URL: archive.server.url, LEDGER_TOKEN: TOKEN },
  });

const PAGE = "<html><body>The station, 8 April 2022</body></html>";

/** A response record of `body` at `url`; `declared` is its WARC-Payload-Digest as given (else warcio computes it). */
async function responseRecord(url: string, body: string, contentType: string, declared?: string) {
  return WARCRecord.create(
    {
      url,
      date: "2022-04-08T18:00:00Z",
      type: "response",
      warcVersion: "WARC/1.1",
      httpHeaders: { "Content-Type": contentType },
      ...(declared ? { warcHeaders: { "WARC-Payload-Digest": declared } } : {}),
    },
    (async function* () {
      yield new TextEncoder().encode(body);
    })(),
  );
}

/** A WARC of one page, its digest as `responseRecord` writes it. */
async function warcOf(gzip: boolean, declared?: string): Promise<Uint8Array> {
  const records = [
    await WARCRecord.createWARCInfo({ filename: "page.warc", warcVersion: "WARC/1.1" }, { software: "test" }),
    await responseRecord("https://news.example.org/kramatorsk", PAGE, "text/html", declared),
  ];
  const parts = await Promise.all(records.map((r) => WARCSerializer.serialize(r, { gzip })));
  return Buffer.concat(parts);
}

const payloadDigest = `sha256:${createHash("sha256").update(PAGE).digest("hex")}`;
/** The page's SHA-1 in base32, as wget, Heritrix and Python's warcio write a payload digest (coreutils' `base32`). */
const sha1Base32 = async () =>
  `sha1:${(await runShell(`printf '%s' '${PAGE}' | openssl sha1 -binary | base32`)).stdout.trim()}`;
const runShell = (command: string) => run("bash", ["-c", command]);

describe("npm run capture", () => {
  it("uploads a file and records its capture; a rerun stores nothing new", async () => {
    const file = join(work, "photo.jpg");
    writeFileSync(file, "not really a jpeg, but bytes");
    const args = [
      file,
      "--incident",
      "capture-cli",
      "--source-url",
      "https://t.me/channel/1",
      "--title",
      "A photo",
    ];
    const first = await capture(...args);
    const line = JSON.parse(first.stdout);
    expect(line).toMatchObject({
      status: "recorded",
      sha256: sha256Of("not really a jpeg, but bytes"),
      mediaType: "image/jpeg",
    });
    expect(first.stderr).toContain("uploading photo.jpg: 100%");
    const again = JSON.parse((await capture(...args)).stdout);
    expect(again).toMatchObject({ status: "already recorded", eventId: line.eventId });
    const events = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items;
    expect(events.filter((e: { type: string }) => e.type === "EvidenceCaptured")).toHaveLength(1);
    expect(events[1].data).toMatchObject({
      kind: "image",
      sourceUrl: "https://t.me/channel/1",
      title: "A photo",
    });
  });

  it("sends a large file by the direct upload, with progress lines off a terminal", async () => {
    const file = join(work, "video.mp4");
    const bytes = Buffer.alloc(5 * 1024 * 1024, 7);
    writeFileSync(file, bytes);
    const run = await capture(file, "--incident", "capture-cli", "--publisher", "A channel");
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "recorded",
      sha256: sha256Of(bytes),
      size: bytes.length,
    });
    expect(run.stderr).toContain("uploading video.mp4: 50%");
    expect(run.stderr).toContain("uploading video.mp4: 100%");
    const held = await fetch(`${archive.server.url}/evidence/${sha256Of(bytes)}`, { method: "HEAD" });
    expect(held.headers.get("content-length")).toBe(String(bytes.length));
  });

  for (const gzip of [false, true]) {
    it(`recognises a WARC${gzip ? ".gz" : ""}: the container and its main response's payload digest`, async () => {
      const file = join(work, gzip ? "page.warc.gz" : "page.warc");
      writeFileSync(file, await warcOf(gzip));
      const line = JSON.parse((await capture(file, "--incident", "capture-cli")).stdout);
      const events = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items;
      const event = events.find((e: { eventId: string }) => e.eventId === line.eventId);
      expect(event.data).toMatchObject({
        kind: "archive",
        sourceUrl: "https://news.example.org/kramatorsk",
        capturedAt: "2022-04-08T18:00:00.000Z",
        container: { format: "warc", payloadDigest },
      });
      expect(event.source.publisher).toBe("news.example.org");
      // Downloaded under a name the reader's system opens: gzip'd bytes end in .gz.
      const held = await fetch(`${archive.server.url}/evidence/${event.data.sha256}`, { method: "HEAD" });
      expect(held.headers.get("content-disposition")).toBe(
        `attachment; filename="${event.data.sha256}.${gzip ? "gz" : "warc"}"`,
      );
    });
  }

  it("records a WARC's own SHA-1 payload digest (base32) once its payload hashes to it", async () => {
    const declared = await sha1Base32();
    const file = join(work, "sha1.warc");
    writeFileSync(file, await warcOf(false, declared));
    const line = JSON.parse((await capture(file, "--incident", "capture-cli")).stdout);
    const events = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items;
    const event = events.find((e: { eventId: string }) => e.eventId === line.eventId);
    expect(event.data.container).toEqual({ format: "warc", payloadDigest: declared });
  });

  it("checks every record's digest: another page damaged is a warning, and the capture's own is recorded", async () => {
    const damaged = await WARCSerializer.serialize(
      await responseRecord(
        "https://news.example.org/style.css",
        "body { color: red }",
        "text/css",
        `sha256:${"0".repeat(64)}`,
      ),
    );
    const file = join(work, "damaged-part.warc");
    writeFileSync(file, Buffer.concat([await warcOf(false), damaged]));
    const run = await capture(
      file,
      "--incident",
      "capture-cli",
      "--source-url",
      "https://news.example.org/kramatorsk",
    );
    const line = JSON.parse(run.stdout);
    expect(line).toMatchObject({ status: "recorded", otherRecords: { checked: 1, damaged: 1 } });
    expect(run.stderr).toContain(
      `warning: the record of https://news.example.org/style.css declares WARC-Payload-Digest sha256:${"0".repeat(64)}`,
    );
    const events = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items;
    const event = events.find((e: { eventId: string }) => e.eventId === line.eventId);
    expect(event.data.container).toEqual({ format: "warc", payloadDigest });
  });

  it("refuses a --source-url no record of the WARC is of: its digest and date would be another page's", async () => {
    const file = join(work, "other-page.warc");
    const bytes = await warcOf(false);
    writeFileSync(file, bytes);
    const run = await capture(
      file,
      "--incident",
      "capture-cli",
      "--source-url",
      "https://news.example.org/not-in-this-warc",
    ).catch((e) => e);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${file}: no response record in it is of https://news.example.org/not-in-this-warc: its response records are of https://news.example.org/kramatorsk.`,
    );
    expect(run.stderr).toContain("Nothing was uploaded or recorded.");
    const held = await fetch(`${archive.server.url}/evidence/${sha256Of(bytes)}`, { method: "HEAD" });
    expect(held.status).toBe(404);
  });

  it("checks its arguments and the incident before the bytes leave: a refused capture uploads nothing", async () => {
    const held = async (bytes: string) =>
      (await fetch(`${archive.server.url}/evidence/${sha256Of(Buffer.from(bytes))}`, { method: "HEAD" }))
        .status;
    const unnamed = join(work, "unnamed.txt");
    writeFileSync(unnamed, "a note with no publisher");
    const noPublisher = await capture(unnamed, "--incident", "capture-cli").catch((e) => e);
    expect(noPublisher.code).toBe(2);
    expect(noPublisher.stderr).toContain("--publisher");
    expect(noPublisher.stderr).not.toContain("uploaded");
    expect(await held("a note with no publisher")).toBe(404);

    // A value the API's rules refuse (a kind it does not know, a time that is not one): refused here, by the same rules.
    const unkind = join(work, "unkind.txt");
    writeFileSync(unkind, "a note with a kind the archive does not know");
    const badKind = await capture(
      unkind,
      "--incident",
      "capture-cli",
      "--publisher",
      "A channel",
      "--kind",
      "photo",
      "--captured-at",
      "yesterday",
    ).catch((e) => e);
    expect(badKind.code).toBe(2);
    expect(badKind.stderr).toContain("nothing was uploaded");
    expect(badKind.stderr).toContain("data.kind:");
    expect(badKind.stderr).toContain("data.capturedAt:");
    expect(await held("a note with a kind the archive does not know")).toBe(404);

    const misspelt = join(work, "misspelt.txt");
    writeFileSync(misspelt, "a note for an incident that is not there");
    const unknown = await capture(misspelt, "--incident", "capture-cil", "--publisher", "A channel").catch(
      (e) => e,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no incident "capture-cil"');
    expect(unknown.stderr).toContain("nothing was uploaded");
    expect(await held("a note for an incident that is not there")).toBe(404);
  });

  it("refuses a WARC whose payload does not hash to the digest it declares, uploading nothing", async () => {
    const declared = await sha1Base32();
    // The same page with one letter changed after the crawler wrote its digest.
    const altered = Buffer.from(await warcOf(false, declared));
    const at = altered.indexOf("The station");
    altered.write("the", at);
    const file = join(work, "altered.warc");
    writeFileSync(file, altered);
    const before = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items.length;
    const refused = await capture(file, "--incident", "capture-cli").catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `declares WARC-Payload-Digest ${declared}, but its payload hashes to sha1:`,
    );
    expect(refused.stderr).toContain("nothing was uploaded or recorded");
    expect(
      (await fetch(`${archive.server.url}/evidence/${sha256Of(altered)}`, { method: "HEAD" })).status,
    ).toBe(404);
    const after = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items.length;
    expect(after).toBe(before);
  });

  it("recognises a WACZ (a zip of WARCs, read with the system's unzip)", async () => {
    const file = join(work, "page.wacz");
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(await warcOf(true)), "archive/data.warc.gz");
    zip.addBuffer(Buffer.from('{"profile":"data-package"}'), "datapackage.json");
    zip.end();
    await new Promise((resolve) =>
      zip.outputStream.pipe(createWriteStream(file)).on("close", () => resolve(undefined)),
    );
    const line = JSON.parse((await capture(file, "--incident", "capture-cli")).stdout);
    const events = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items;
    const event = events.find((e: { eventId: string }) => e.eventId === line.eventId);
    expect(event.data.container).toEqual({ format: "wacz", payloadDigest });
    expect(event.data.mediaType).toBe("application/wacz");
  });

  it("checks auto-archiver metadata against the file, and records what it says", async () => {
    const file = join(work, "screenshot.png");
    writeFileSync(file, "png bytes of a screenshot");
    const sha = sha256Of("png bytes of a screenshot");
    const metadata = {
      status: "telegram: success",
      metadata: {
        url: "https://t.me/some_channel/1234",
        title: "Post about the strike",
        timestamp: "2022-04-08T09:45:00+00:00",
        _processed_at: "2022-04-08T10:00:00.123456+00:00",
      },
      media: [
        {
          filename: "local_archive/abc.png",
          key: "abc.png",
          urls: ["https://storage.example.org/abc.png"],
          properties: { hash: `SHA-256:${sha}`, id: "_final_media" },
          _mimetype: "image/png",
        },
      ],
    };
    const good = join(work, "good.json");
    writeFileSync(good, JSON.stringify(metadata));
    const line = JSON.parse((await capture(file, "--incident", "capture-cli", "--metadata", good)).stdout);
    const events = (await call(archive.server.url, "GET", "/incidents/capture-cli/events")).body.items;
    const event = events.find((e: { eventId: string }) => e.eventId === line.eventId);
    expect(event.data).toMatchObject({
      sourceUrl: "https://t.me/some_channel/1234",
      title: "Post about the strike",
      capturedAt: "2022-04-08T10:00:00.123Z",
      capturedBy: { tool: "auto-archiver" },
      archives: [{ service: "auto-archiver", url: "https://storage.example.org/abc.png" }],
      mediaType: "image/png",
    });

    const other = join(work, "other.json");
    writeFileSync(
      other,
      JSON.stringify({
        ...metadata,
        media: [{ ...metadata.media[0], properties: { hash: `SHA-256:${"ab".repeat(32)}` } }],
      }),
    );
    const refused = await capture(file, "--incident", "capture-cli", "--metadata", other).catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`names no file with SHA-256 ${sha}`);
  });
});
