import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3BlobStore } from "../../functions/evidence/s3-blob-store.js";
import { sha256Of } from "./evidence-kit.js";

const BUCKET = "evidence-test";
let server: S3rver;
let dir: string;
let s3: S3Client;
let store: S3BlobStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ledger-s3rver-evidence-"));
  server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  s3 = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    region: "us-east-1",
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  });
  store = new S3BlobStore(s3, BUCKET);
});
afterAll(async () => {
  s3.destroy();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function* chunks(...parts: string[]) {
  for (const part of parts) yield new TextEncoder().encode(part);
}
const keys = async (prefix: string) =>
  ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map(
    (o) => o.Key,
  );

describe("the S3 blob store (s3rver as the stand-in)", () => {
  it("streams bytes in while hashing, knows them again, and leaves nothing in incoming/", async () => {
    const first = await store.put(chunks("<html>", "the page", "</html>"), {
      mediaType: "text/html",
      max: 1000,
    });
    expect(first).toEqual({
      sha256: sha256Of("<html>the page</html>"),
      size: 21,
      mediaType: "text/html",
      created: true,
    });
    const again = await store.put(chunks("<html>the page</html>"), { mediaType: "text/plain", max: 1000 });
    expect(again).toMatchObject({ created: false, mediaType: "text/html" });
    expect(await store.head(first.sha256)).toEqual({
      sha256: first.sha256,
      size: 21,
      mediaType: "text/html",
      access: null,
      keptAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const part = await new Response(await store.read(first.sha256, { start: 6, end: 13 })).text();
    expect(part).toBe("the page");
    expect(await keys("incoming/")).toEqual([]);
  });

  it("keeps nothing of bytes over the limit or unlike their declared digest", async () => {
    await expect(
      store.put(chunks("x".repeat(600), "y".repeat(600)), { mediaType: "text/plain", max: 1000 }),
    ).rejects.toThrow(/over 1000 bytes/);
    await expect(
      store.put(chunks("what came"), {
        mediaType: "text/plain",
        max: 1000,
        sha256: sha256Of("what was promised"),
      }),
    ).rejects.toMatchObject({ name: "DigestMismatchError", status: 422 });
    expect(await store.head(sha256Of("what came"))).toBeNull();
    expect(await keys("incoming/")).toEqual([]);
  });

  it("stages bytes in incoming/ (hashed, not held) until kept, and leaves nothing when discarded", async () => {
    const staged = await store.stage(chunks("a staged ", "photo"), { mediaType: "image/jpeg", max: 1000 });
    expect(staged).toMatchObject({ sha256: sha256Of("a staged photo"), size: 14, mediaType: "image/jpeg" });
    expect(await keys("incoming/")).toHaveLength(1);
    expect(await store.head(staged.sha256)).toBeNull();
    await staged.discard();
    expect(await keys("incoming/")).toEqual([]);
    expect(await store.head(staged.sha256)).toBeNull();
    const again = await store.stage(chunks("a staged photo"), { mediaType: "image/jpeg", max: 1000 });
    expect(await again.keep()).toMatchObject({ sha256: staged.sha256, created: true });
    await again.discard();
    expect(await store.head(staged.sha256)).toMatchObject({ size: 14, mediaType: "image/jpeg" });
    expect(await keys("incoming/")).toEqual([]);
  });

  it("marks bytes restricted, and never back", async () => {
    const { sha256 } = await store.put(chunks("a face"), { mediaType: "image/jpeg", max: 1000 });
    await store.setAccess(sha256, "restricted");
    await store.setAccess(sha256, "public");
    expect((await store.head(sha256))?.access).toBe("restricted");
  });

  it("presigns a direct PUT with the SHA-256 checksum among the signed headers, to the blob's own name", async () => {
    const bytes = "a large video, in spirit";
    const sha256 = sha256Of(bytes);
    const upload = await store.directUpload({
      sha256,
      size: bytes.length,
      mediaType: "video/mp4",
      expiresInSeconds: 600,
    });
    const url = new URL(upload.uploadUrl);
    expect(url.pathname).toBe(`/${BUCKET}/blobs/${sha256}`);
    expect(url.searchParams.get("X-Amz-SignedHeaders")?.split(";")).toEqual(
      expect.arrayContaining(["content-length", "content-type", "x-amz-checksum-sha256"]),
    );
    expect(url.searchParams.has("x-amz-checksum-sha256")).toBe(false);
    expect(upload.headers["x-amz-checksum-sha256"]).toBe(Buffer.from(sha256, "hex").toString("base64"));
    // S3 refuses other bytes (the checksum) and another checksum (the signature); s3rver checks
    // neither, so this test holds the URL to what S3 needs for both.
    const put = await fetch(upload.uploadUrl, { method: "PUT", headers: upload.headers, body: bytes });
    expect(put.status).toBe(200);
    expect(await store.head(sha256)).toMatchObject({ size: bytes.length, mediaType: "video/mp4" });
    const link = await store.readUrl(sha256, {
      mediaType: "video/mp4",
      disposition: "attachment",
      expiresInSeconds: 60,
      access: "public",
    });
    expect(new URL(link).searchParams.has("response-cache-control")).toBe(false);
    expect(await (await fetch(link)).text()).toBe(bytes);
  });

  it("presigns a GET of restricted bytes that S3 answers with Cache-Control: private, no-store", async () => {
    const put = await store.put(chunks("a restricted photograph"), { mediaType: "image/jpeg", max: 1000 });
    await store.setAccess(put.sha256, "restricted");
    const link = await store.readUrl(put.sha256, {
      mediaType: "image/jpeg",
      disposition: "attachment",
      expiresInSeconds: 60,
      access: "restricted",
    });
    // Signed into the URL, so a reader cannot drop it and keep the signature.
    const url = new URL(link);
    expect(url.searchParams.get("response-cache-control")).toBe("private, no-store");
    expect(url.searchParams.get("X-Amz-Signature")).toBeTruthy();
    const answer = await fetch(link);
    expect(answer.headers.get("cache-control")).toBe("private, no-store");
    expect(await answer.text()).toBe("a restricted photograph");
  });
});
