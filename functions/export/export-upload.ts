import { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { contentDisposition, EXPORT_FILES, type ExportName, exportObjectKey } from "./export-files.js";
import type { Exporter } from "./exports.js";
import type { LogReader } from "./log-reader.js";

/** S3's smallest part (but the last): memory holds about queueSize + 1 parts of it. */
const PART_BYTES = 5 * 1024 * 1024;

export interface BuiltExport {
  key: string;
  bytes: number;
  /** How many parts the upload took (1: a single PutObject). */
  parts: number;
}

/**
 * Builds one export into the exports bucket: the very bytes the routes stream (the same
 * `Exporter`), uploaded in 5 MB parts as they are produced, so memory is bounded by a few
 * parts whatever the export's size; a failed build aborts its multipart upload (and the
 * bucket's lifecycle rule clears any left behind), so an object exists only when complete.
 * Only tree sizes the log has signed are built: a larger one would store a shorter export
 * under a key that claims more.
 */
export async function uploadExport(options: {
  s3: S3Client;
  bucket: string;
  exporter: Exporter;
  logReader: LogReader;
  treeSize: number;
  name: ExportName;
}): Promise<BuiltExport> {
  const { s3, bucket, exporter, treeSize, name } = options;
  const signed = (await options.logReader.latestCheckpoint())?.size ?? 0;
  if (!Number.isSafeInteger(treeSize) || treeSize < 1 || treeSize > signed)
    throw new RangeError(`tree size ${treeSize} is not one of the log's signed trees (1 to ${signed})`);
  const key = exportObjectKey(treeSize, name);
  const spec = EXPORT_FILES[name];
  let bytes = 0;
  const body = Readable.from(
    (async function* () {
      for await (const text of spec.body(exporter, treeSize)) {
        const chunk = Buffer.from(text, "utf8");
        bytes += chunk.length;
        yield chunk;
      }
    })(),
  );
  let parts = 0;
  const upload = new Upload({
    client: s3,
    params: {
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentType: spec.type,
      ContentDisposition: contentDisposition(name, treeSize),
      // Immutable: a tree size's export never changes, so any cache may keep it.
      CacheControl: "public, max-age=31536000, immutable",
    },
    partSize: PART_BYTES,
    // One part in flight while the next is produced: the export, not the upload, is the slow side.
    queueSize: 1,
  });
  upload.on("httpUploadProgress", (progress) => {
    parts = Math.max(parts, progress.part ?? 1);
  });
  await upload.done();
  return { key, bytes, parts };
}
