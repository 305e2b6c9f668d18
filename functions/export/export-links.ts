import { GetObjectCommand, HeadObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type ExportName, exportObjectKey, type StoredExports } from "./export-files.js";
import { isMissingObject } from "./s3-client.js";

/** How long a presigned download stays valid: long enough to start (and resume) a big one. */
export const EXPORT_LINK_SECONDS = 3600;

/**
 * The built exports in the exports bucket, as the data Lambda serves them: one HeadObject
 * (whatever the archive's size), then a presigned GET signed locally, with no further call.
 * The URL carries the signer's rights, so the data Lambda needs s3:GetObject on the exports'
 * prefix, and nothing more.
 */
export class ExportBucketLinks implements StoredExports {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly expiresIn = EXPORT_LINK_SECONDS,
  ) {}

  async urlOf(size: number, name: ExportName): Promise<string | null> {
    const object = { Bucket: this.bucket, Key: exportObjectKey(size, name) };
    try {
      await this.s3.send(new HeadObjectCommand(object));
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
    return getSignedUrl(this.s3, new GetObjectCommand(object), { expiresIn: this.expiresIn });
  }
}
