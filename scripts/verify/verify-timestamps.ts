import { type Checkpoint, parseCheckpoint } from "../../events/transparency/checkpoint.js";
import { equalHashes, type Hash, verifyConsistency } from "../../events/transparency/merkle.js";
import { parseNote } from "../../events/transparency/note.js";
import { parseCertificates, verifyTimestampResponse } from "../../events/transparency/timestamp-token.js";
import { VerificationError } from "./checks.js";
import type { LogSource } from "./source.js";

export interface VerifyTimestampsOptions {
  source: LogSource;
  /** The checkpoint this run verified (signature, leaves, chains). */
  checkpoint: Checkpoint;
  /** The TSA's CA certificate(s), PEM. */
  caPem: string;
  progress?: (line: string) => void;
}

export interface VerifyTimestampsResult {
  tokens: number;
  /** The newest token's tree size and genTime, if any. */
  newest: { treeSize: number; genTime: string } | null;
}

/**
 * The consistency proof up to a token's tree. A log that grew since its checkpoint was verified
 * serves it; one cut back below a tree a token vouches for cannot, and is said to have shrunk.
 */
async function consistencyTo(source: LogSource, from: number, to: number, what: string): Promise<Hash[]> {
  try {
    return await source.consistency(from, to);
  } catch (error) {
    const now = await source.checkpoint().then(
      (note) => parseCheckpoint(parseNote(note).text).size,
      () => null,
    );
    if (now !== null && now < to)
      throw new VerificationError(
        `${what}: the log's checkpoint is now of size ${now}, smaller than the tree this token vouches for: the log shrank`,
      );
    throw error;
  }
}

/** Pages of tokens read at most (a guard against a server that pages forever). */
const MAX_PAGES = 100_000;

/**
 * Every token GET /log/timestamps lists: its body is a checkpoint of this log (origin, a tree
 * consistent with the verified checkpoint by a served RFC 9162 proof), the DER response its
 * `href` serves is a granted RFC 3161 token whose message imprint is the SHA-256 of that body,
 * signed by a TSA certificate (critical extendedKeyUsage timeStamping) that chains to the CA,
 * and whose genTime is the listed one.
 */
export async function verifyTimestamps(o: VerifyTimestampsOptions): Promise<VerifyTimestampsResult> {
  const { source, checkpoint: verified } = o;
  if (!source.timestamps || !source.timestampToken)
    throw new VerificationError("this source serves no time-stamp tokens");
  let trusted: ReturnType<typeof parseCertificates>;
  try {
    trusted = parseCertificates(o.caPem);
  } catch (error) {
    throw new VerificationError(`--tsa-ca: ${(error as Error).message}`);
  }
  let tokens = 0;
  let newest: VerifyTimestampsResult["newest"] = null;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await source.timestamps(cursor);
    for (const entry of answer.items) {
      const what = `the token over tree size ${entry.treeSize}`;
      let body: Checkpoint;
      try {
        body = parseCheckpoint(entry.checkpoint);
      } catch (error) {
        throw new VerificationError(
          `${what}: its checkpoint is not a checkpoint body: ${(error as Error).message}`,
        );
      }
      if (body.size !== entry.treeSize || body.origin !== verified.origin)
        throw new VerificationError(`${what}: its checkpoint is of ${body.origin} at size ${body.size}`);
      if (body.size === verified.size) {
        if (!equalHashes(body.root, verified.root))
          throw new VerificationError(`${what}: its checkpoint's root is not the verified checkpoint's`);
      } else {
        const [small, large] = body.size < verified.size ? [body, verified] : [verified, body];
        const proof = small.size === 0 ? [] : await consistencyTo(source, small.size, large.size, what);
        if (small.size > 0 && !verifyConsistency(small.size, large.size, proof, small.root, large.root))
          throw new VerificationError(
            `${what}: its checkpoint is not consistent with the verified checkpoint of size ${verified.size}`,
          );
      }
      const der = await source.timestampToken(entry.href);
      let genTime: Date;
      try {
        ({ genTime } = await verifyTimestampResponse(
          der,
          new TextEncoder().encode(entry.checkpoint),
          trusted,
        ));
      } catch (error) {
        throw new VerificationError(`${what}: ${(error as Error).message}`);
      }
      if (genTime.getTime() !== Date.parse(entry.genTime))
        throw new VerificationError(
          `${what}: its genTime is ${genTime.toISOString()}, not the listed ${entry.genTime}`,
        );
      tokens += 1;
      newest ??= { treeSize: entry.treeSize, genTime: genTime.toISOString() };
    }
    o.progress?.(`${tokens} time-stamp tokens verified`);
    if (answer.nextCursor) {
      cursor = answer.nextCursor;
      continue;
    }
    // Asked to check trusted time, and none is served: nothing vouches for when anything was
    // logged (no authority configured, or its tokens are gone), which is not a pass.
    if (tokens === 0 && o.checkpoint.size > 0)
      throw new VerificationError(
        "the log serves no RFC 3161 time-stamp token (GET /log/timestamps is empty): nothing vouches for when its checkpoints existed",
      );
    return { tokens, newest };
  }
  throw new VerificationError(`GET /log/timestamps pages on past ${MAX_PAGES} pages`);
}
