import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { AsyncIterReader, WARCParser, type WARCRecord } from "warcio";
import { declaredDigest, PayloadHashes } from "./warc-digest.js";

/** What a capture records of a web archive file: its container, and its main response. */
export interface WarcFacts {
  format: "warc" | "wacz";
  /** The main response's WARC-Payload-Digest, checked against its payload (its SHA-256 when the record has none). */
  payloadDigest?: string;
  targetUri?: string;
  /** WARC-Date of the main response. */
  date?: string;
  /** Why the payload digest could not be read or checked (a WACZ without an unzip tool, an algorithm not known here). */
  note?: string;
  /** The other records' payload digests: how many were checked, and those their payloads do not hash to. */
  others?: { checked: number; damaged: PayloadDigestMismatch[] };
  /**
   * The page asked for, when no response record is of it: then the facts above are the first
   * response's, not its. `targets`: the first responses' target URIs, of `responses` in all.
   */
  unmatched?: { uri: string; targets: string[]; responses: number };
}

/** How many of a WARC's response targets an unmatched page's message lists. */
const TARGETS_LISTED = 5;

/**
 * A record whose payload does not hash to the digest it declares: the file was damaged or
 * altered after the crawler wrote it, so its digest is not recorded as the capture's.
 */
export class PayloadDigestMismatch extends Error {
  constructor(
    readonly targetUri: string | undefined,
    readonly declared: string,
    readonly computed: string,
  ) {
    super(
      `the record of ${targetUri ?? "no WARC-Target-URI"} declares WARC-Payload-Digest ${declared}, but its payload hashes to ${computed}`,
    );
    this.name = "PayloadDigestMismatch";
  }
}

export function containerFormat(file: string): "warc" | "wacz" | null {
  if (/\.wacz$/i.test(file)) return "wacz";
  if (/\.warc(\.gz)?$/i.test(file)) return "warc";
  return null;
}

/**
 * The main response of a WARC stream, and every other record's payload digest checked: the main
 * one is the first `response` (or `resource`) record whose target is `preferUri` when given,
 * else the first one at all (and `unmatched` says the page asked for was not met). warcio reads plain and gzip'd WARCs alike. A main payload that does
 * not hash to the digest it declares throws PayloadDigestMismatch (what the capture records
 * would be false); another record's is listed in `others.damaged` (the file is still the bytes
 * captured, and the caller says which part of it was damaged). A `revisit` record's digest names
 * the payload it revisits, not its own, so it is not checked.
 */
export async function mainResponse(
  source: AsyncIterable<Uint8Array>,
  preferUri?: string,
): Promise<Omit<WarcFacts, "format">> {
  let main: Checked | null = null;
  // Without a page asked for, the first response is the capture's; with one, until it is met.
  let settled = false;
  const others = { checked: 0, damaged: [] as PayloadDigestMismatch[] };
  const seen = { targets: [] as string[], responses: 0 };
  const other = (checked: Checked) => {
    if (checked.verified) others.checked += 1;
    if (checked.mismatch) others.damaged.push(checked.mismatch);
  };
  for await (const record of new WARCParser(source)) {
    const response = record.warcType === "response" || record.warcType === "resource";
    const declares = Boolean(record.warcPayloadDigest) && record.warcType !== "revisit";
    if (!response && !declares) {
      await record.skipFully();
      continue;
    }
    const checked = await checkedPayload(record);
    if (response) {
      seen.responses += 1;
      const target = checked.facts.targetUri;
      if (target && seen.targets.length < TARGETS_LISTED) seen.targets.push(target);
    }
    if (!response || settled) {
      other(checked);
      continue;
    }
    if (main === null || checked.facts.targetUri === preferUri) {
      if (main) other(main);
      main = checked;
      settled = !preferUri || checked.facts.targetUri === preferUri;
    } else other(checked);
  }
  if (main?.mismatch) throw main.mismatch;
  const unmatched = preferUri !== undefined && !settled ? { unmatched: { uri: preferUri, ...seen } } : {};
  return { ...(main?.facts ?? {}), others, ...unmatched };
}

interface Checked {
  facts: Omit<WarcFacts, "format" | "others">;
  /** Its declared digest was read and compared. */
  verified: boolean;
  mismatch?: PayloadDigestMismatch;
}

/**
 * The payload's digest as recorded: the one the record declares once its payload is hashed to
 * it, else the payload's SHA-256. A chunked HTTP payload is hashed both as stored and with its
 * chunking removed, since crawlers differ on which one the WARC spec's "payload" is.
 */
async function checkedPayload(record: WARCRecord): Promise<Checked> {
  const written = record.warcPayloadDigest ?? null;
  const declared = written === null ? null : declaredDigest(written);
  const readable = declared !== null && !("unreadable" in declared) ? declared : null;
  const raw = new PayloadHashes(readable);
  const chunked =
    readable !== null && /chunked/i.test(record.httpHeaders?.headers.get("Transfer-Encoding") ?? "");
  const dechunked = chunked ? new PayloadHashes(readable) : null;
  if (dechunked) {
    const tee = async function* () {
      for await (const chunk of record.reader) {
        raw.update(chunk);
        yield chunk;
      }
    };
    const stored = tee();
    for await (const chunk of new AsyncIterReader(stored, null, true)) dechunked.update(chunk);
    // The de-chunker stops at the last chunk: whatever the payload holds after it is hashed as stored.
    for await (const _ of stored);
  } else {
    for await (const chunk of record.reader) raw.update(chunk);
  }
  const asStored = raw.finish();
  const where = {
    ...(record.warcTargetURI ? { targetUri: record.warcTargetURI } : {}),
    ...(record.warcDate ? { date: record.warcDate } : {}),
  };
  if (written === null) return { facts: { payloadDigest: asStored.sha256, ...where }, verified: false };
  if (readable === null)
    return {
      verified: false,
      facts: {
        payloadDigest: asStored.sha256,
        ...where,
        note: `the record's WARC-Payload-Digest ${written} was not checked: ${(declared as { unreadable: string }).unreadable}; its payload's SHA-256 is recorded instead`,
      },
    };
  if (asStored.matches || dechunked?.finish().matches)
    return { facts: { payloadDigest: written, ...where }, verified: true };
  return {
    facts: where,
    verified: true,
    mismatch: new PayloadDigestMismatch(where.targetUri, written, asStored.computed as string),
  };
}

/**
 * A WACZ is a zip holding `archive/*.warc.gz`. No zip reader is among the project's packages
 * (yazl writes zips; its companion yauzl is not installed), so the WARCs inside are read through
 * the system's `unzip -p`, when there is one; without it only the container is recorded.
 */
async function* waczWarcs(file: string): AsyncGenerator<Uint8Array> {
  const child = spawn("unzip", ["-p", file, "archive/*.warc.gz", "archive/*.warc"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });
  for await (const chunk of child.stdout) yield chunk as Uint8Array;
  const code = await exited;
  if (code !== 0 && code !== 11) throw new Error(`unzip -p ${file} failed (exit ${code})`);
}

export async function readWarcFacts(file: string, preferUri?: string): Promise<WarcFacts | null> {
  const format = containerFormat(file);
  if (!format) return null;
  if (format === "warc") {
    return { format, ...(await mainResponse(createReadStream(file), preferUri)) };
  }
  try {
    return { format, ...(await mainResponse(waczWarcs(file), preferUri)) };
  } catch (error) {
    if (error instanceof PayloadDigestMismatch) throw error;
    return { format, note: `the WARCs inside were not read: ${(error as Error).message}` };
  }
}
