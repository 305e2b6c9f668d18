import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { WARCParser } from "warcio";

/** What a capture records of a web archive file: its container, and its main response. */
export interface WarcFacts {
  format: "warc" | "wacz";
  /** The main response's WARC-Payload-Digest (computed when the record has none). */
  payloadDigest?: string;
  targetUri?: string;
  /** WARC-Date of the main response. */
  date?: string;
  /** Why the payload digest could not be read (a WACZ without an unzip tool). */
  note?: string;
}

export function containerFormat(file: string): "warc" | "wacz" | null {
  if (/\.wacz$/i.test(file)) return "wacz";
  if (/\.warc(\.gz)?$/i.test(file)) return "warc";
  return null;
}

/**
 * The main response of a WARC stream: the first `response` (or `resource`) record whose target
 * is `preferUri` when given, else the first one at all. warcio reads plain and gzip'd WARCs alike.
 */
export async function mainResponse(
  source: AsyncIterable<Uint8Array>,
  preferUri?: string,
): Promise<Omit<WarcFacts, "format"> | null> {
  let first: Omit<WarcFacts, "format"> | null = null;
  for await (const record of new WARCParser(source)) {
    if (record.warcType !== "response" && record.warcType !== "resource") {
      await record.skipFully();
      continue;
    }
    let payloadDigest = record.warcPayloadDigest ?? undefined;
    if (!payloadDigest) {
      const hash = createHash("sha256");
      for await (const chunk of record.reader) hash.update(chunk);
      payloadDigest = `sha256:${hash.digest("hex")}`;
    } else {
      await record.skipFully();
    }
    const facts = {
      payloadDigest,
      ...(record.warcTargetURI ? { targetUri: record.warcTargetURI } : {}),
      ...(record.warcDate ? { date: record.warcDate } : {}),
    };
    if (!preferUri || facts.targetUri === preferUri) return facts;
    first ??= facts;
  }
  return first;
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
    const main = await mainResponse(createReadStream(file), preferUri);
    return { format, ...(main ?? {}) };
  }
  try {
    const main = await mainResponse(waczWarcs(file), preferUri);
    return { format, ...(main ?? {}) };
  } catch (error) {
    return { format, note: `the WARCs inside were not read: ${(error as Error).message}` };
  }
}
