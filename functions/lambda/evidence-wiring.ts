import { S3BlobStore } from "../evidence/s3-blob-store.js";
import { createS3Client } from "../export/s3-client.js";
import { jwtBearer } from "../http/async-auth.js";
import type { Logger } from "../logger.js";

/**
 * The evidence parts of a Lambda, from its environment: the bucket (EVIDENCE_BUCKET) and the
 * readers' JWT check (JWT_ISSUER, JWT_AUDIENCE), none when the stack gave no bucket.
 */
export function evidenceFromEnv(env: NodeJS.ProcessEnv, log: Logger) {
  if (!env.EVIDENCE_BUCKET) return undefined;
  return {
    store: new S3BlobStore(createS3Client(), env.EVIDENCE_BUCKET),
    log,
    ...(env.LEDGER_EVIDENCE_MAX ? { maxBytes: Number(env.LEDGER_EVIDENCE_MAX) } : {}),
    ...(env.JWT_ISSUER
      ? {
          readers: jwtBearer({
            issuer: env.JWT_ISSUER,
            audience: (env.JWT_AUDIENCE ?? "").split(",").filter((a) => a !== ""),
            // The stack names the roles' claim GROUPS_CLAIM (infra/people-tables.ts).
            ...((env.JWT_GROUPS_CLAIM ?? env.GROUPS_CLAIM)
              ? { groupsClaim: (env.JWT_GROUPS_CLAIM ?? env.GROUPS_CLAIM) as string }
              : {}),
          }),
        }
      : {}),
  };
}
