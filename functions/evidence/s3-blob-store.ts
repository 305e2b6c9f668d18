import { randomUUID } from "node:crypto";
import { PassThrough } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { isMissingObject } from "../export/s3-client.js";
import {
  type Access,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  type DirectUpload,
  hexToBase64,
  Intake,
  keepStaged,
  type PutOptions,
  type PutResult,
  SHA256_HEX,
  type StagedBlob,
  stricter,
} from "./blob-store.js";

/** Where each kind of object lives in the evidence bucket (the grants name these prefixes). */
export const EVIDENCE_PREFIXES = {
  /** The bytes, at `blobs/<sha256>`, with their media type as the object's Content-Type. */
  blobs: "blobs/",
  /** Who may read them, at `access/<sha256>` (`public` or `restricted`): written by the writer. */
  access: "access/",
  /** A streamed POST's bytes until their hash is known; a lifecycle rule expires leftovers. */
  incoming: "incoming/",
} as const;

/**
 * Evidence in an S3 bucket. A presigned PUT goes straight to `blobs/<sha256>` with
 * `x-amz-checksum-sha256` signed, so S3 itself refuses other bytes, and an object appears only
 * once whole. A streamed POST goes to `incoming/` first (its hash is known only at the end),
 * then is copied to its real name with S3 checking the checksum again.
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  private key(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new RangeError(`not a SHA-256: ${sha256}`);
    return `${EVIDENCE_PREFIXES.blobs}${sha256}`;
  }

  put(body: AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult> {
    return keepStaged(this.stage(body, options));
  }

  async stage(body: AsyncIterable<Uint8Array>, options: PutOptions): Promise<StagedBlob> {
    const incoming = `${EVIDENCE_PREFIXES.incoming}${randomUUID()}`;
    let gone = false;
    const discard = async () => {
      if (gone) return;
      gone = true;
      await this.s3
        .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: incoming }))
        .catch(() => undefined);
    };
    const intake = new Intake(options);
    const pipe = new PassThrough();
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.bucket, Key: incoming, Body: pipe, ContentType: options.mediaType },
    });
    const uploaded = upload.done();
    uploaded.catch(() => undefined);
    let sha256: string;
    try {
      try {
        for await (const chunk of body) {
          intake.take(chunk);
          if (!pipe.write(chunk)) await new Promise((resolve) => pipe.once("drain", resolve));
        }
      } catch (error) {
        await upload.abort().catch(() => undefined);
        pipe.destroy();
        throw error;
      }
      pipe.end();
      await uploaded;
      sha256 = intake.finish();
    } catch (error) {
      await discard();
      throw error;
    }
    const { size } = intake;
    const keep = async (access = options.access): Promise<PutResult> => {
      try {
        // Bytes held already keep their access (an upload never hides evidence a capture made
        // public); new ones asked to be restricted are so before they are under their name.
        const held = await this.head(sha256);
        if (held) return { sha256, size, mediaType: held.mediaType, created: false };
        if (access === "restricted") await this.setAccess(sha256, "restricted");
        await this.s3.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: this.key(sha256),
            CopySource: `${this.bucket}/${incoming}`,
            ContentType: options.mediaType,
            MetadataDirective: "REPLACE",
            ChecksumAlgorithm: "SHA256",
          }),
        );
        return { sha256, size, mediaType: options.mediaType, created: true };
      } finally {
        await discard();
      }
    };
    return { sha256, size, mediaType: options.mediaType, keep, discard };
  }

  async head(sha256: string): Promise<BlobInfo | null> {
    if (!SHA256_HEX.test(sha256)) return null;
    let object: {
      ContentLength?: number | undefined;
      ContentType?: string | undefined;
      LastModified?: Date | undefined;
    };
    try {
      object = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(sha256) }));
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
    return {
      sha256,
      size: object.ContentLength ?? 0,
      mediaType: object.ContentType ?? "application/octet-stream",
      access: await this.access(sha256),
      keptAt: object.LastModified?.toISOString() ?? "",
    };
  }

  async read(sha256: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
    const answer = await this.s3.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(sha256),
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    if (!answer.Body) throw new Error(`evidence ${sha256} has no body`);
    return answer.Body.transformToWebStream() as ReadableStream<Uint8Array>;
  }

  async setAccess(sha256: string, access: Access): Promise<void> {
    const current = await this.access(sha256);
    const next = stricter(current, access);
    if (current === next) return;
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: `${EVIDENCE_PREFIXES.access}${sha256}`,
        Body: next,
        ContentType: "text/plain",
      }),
    );
  }

  async directUpload(upload: {
    sha256: string;
    size: number;
    mediaType: string;
    expiresInSeconds: number;
    access?: Access;
  }): Promise<DirectUpload> {
    // The PUT goes to S3, not through here: restricted now, unless the bytes are held already
    // (an upload never hides evidence a capture made public).
    if (upload.access === "restricted" && !(await this.head(upload.sha256)))
      await this.setAccess(upload.sha256, "restricted");
    const checksum = hexToBase64(upload.sha256);
    const uploadUrl = await getSignedUrl(
      this.s3,
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(upload.sha256),
        ContentType: upload.mediaType,
        ContentLength: upload.size,
        ChecksumSHA256: checksum,
      }),
      {
        expiresIn: upload.expiresInSeconds,
        // Signed as headers (not hoisted into the query): S3 then checks the bytes against it.
        signableHeaders: new Set(["content-type", "content-length", "x-amz-checksum-sha256"]),
        unhoistableHeaders: new Set(["x-amz-checksum-sha256"]),
      },
    );
    return {
      uploadUrl,
      headers: {
        "content-type": upload.mediaType,
        "content-length": String(upload.size),
        "x-amz-checksum-sha256": checksum,
      },
      expiresAt: new Date(Date.now() + upload.expiresInSeconds * 1000).toISOString(),
    };
  }

  async readUrl(
    sha256: string,
    answer: { mediaType: string; disposition: string; expiresInSeconds: number; access: Access },
  ): Promise<string> {
    return getSignedUrl(
      this.s3,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(sha256),
        ResponseContentType: answer.mediaType,
        ResponseContentDisposition: answer.disposition,
        // S3's answer is what the browser keeps: restricted bytes are for this reader only, and
        // not for its disk either (the redirect to them is already no-store).
        ...(answer.access === "restricted" ? { ResponseCacheControl: "private, no-store" } : {}),
      }),
      { expiresIn: answer.expiresInSeconds },
    );
  }

  private async access(sha256: string): Promise<Access | null> {
    try {
      const answer = await this.s3.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: `${EVIDENCE_PREFIXES.access}${sha256}` }),
      );
      const text = (await answer.Body?.transformToString())?.trim();
      return text === "public" || text === "restricted" ? text : null;
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
  }
}
