import { createHash } from "node:crypto";
import { SourceError } from "./source.js";

/** What `--evidence` reads of a capture: only the fields it checks. */
interface Capture {
  eventId: string;
  incidentId: string;
  version: number;
  type: string;
  data: { sha256: string; size: number; access?: string };
}

export interface EvidenceReport {
  captures: number;
  checked: number;
  /**
   * Restricted captures, not fetched (a reader without the role cannot), and public captures of
   * bytes restricted since or before (by another capture, or as they were uploaded): bytes stay
   * restricted once restricted, and what this reader may not read it cannot check.
   */
  restricted: number;
  /** Restricted captures whose bytes are not held, or are served to anyone (among `failures`). */
  restrictedFailures: number;
  bytes: number;
  /** Each capture whose bytes are not served as it recorded them, said in a line. */
  failures: string[];
}

const FEED_PAGE = 1000;

/** Every capture in the archive, in log order, read from GET /feed. */
async function* capturesOf(root: string, get: typeof fetch): AsyncGenerator<Capture> {
  let after = -1;
  for (;;) {
    const answer = await get(`${root}/feed?after=${after}&limit=${FEED_PAGE}`).catch((e: Error) => {
      throw new SourceError(`GET /feed failed: ${e.message}`);
    });
    if (!answer.ok) throw new SourceError(`GET /feed answered ${answer.status}`);
    const page = (await answer.json()) as { items: { index: number; event: Capture }[]; next: number | null };
    for (const { event } of page.items) if (event.type === "EvidenceCaptured") yield event;
    if (page.next === null || page.items.length === 0) return;
    after = page.next;
  }
}

/** What a refusal's problem document says (its detail), or nothing when it has none. */
async function why(answer: Response): Promise<string> {
  const problem = (await answer.json().catch(() => null)) as { detail?: unknown } | null;
  return typeof problem?.detail === "string" ? `: ${problem.detail}` : "";
}

/** The SHA-256 and size of a blob as served, read as a stream. */
async function servedDigest(root: string, sha256: string, get: typeof fetch) {
  const answer = await get(`${root}/evidence/${sha256}`).catch((e: Error) => {
    throw new SourceError(`GET /evidence/${sha256} failed: ${e.message}`);
  });
  if (!answer.ok || !answer.body)
    return { status: answer.status, sha256: null, size: 0, why: await why(answer) };
  const hash = createHash("sha256");
  let size = 0;
  try {
    for await (const chunk of answer.body as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      size += chunk.byteLength;
    }
  } catch (e) {
    throw new SourceError(`GET /evidence/${sha256} broke off after ${size} bytes: ${(e as Error).message}`);
  }
  return { status: answer.status, sha256: hash.digest("hex"), size, why: "" };
}

/**
 * `npm run verify -- --url <base> --evidence`: fetches every public blob an EvidenceCaptured
 * event names and checks its SHA-256 and size against the event. Every capture whose bytes are
 * missing or differ is named, not just the first: one check tells all that must be restored.
 */
export async function verifyEvidence(
  base: string,
  progress?: (line: string) => void,
  get: typeof fetch = fetch,
): Promise<EvidenceReport> {
  const root = base.replace(/\/+$/, "");
  const report: EvidenceReport = {
    captures: 0,
    checked: 0,
    restricted: 0,
    restrictedFailures: 0,
    bytes: 0,
    failures: [],
  };
  // Each blob's size as served, or its failure: bytes named by several captures are fetched once.
  const seen = new Map<string, number | { failed: string }>();
  for await (const event of capturesOf(root, get)) {
    report.captures += 1;
    const { sha256, size } = event.data;
    const where = `incident ${event.incidentId} version ${event.version} (event ${event.eventId})`;
    if (event.data.access === "restricted") {
      report.restricted += 1;
      // Not to be read without the role: asked without credentials, the archive must refuse.
      // Bytes restored without their restriction are served to anyone, and said so here.
      const status = (await get(`${root}/evidence/${sha256}`, { method: "HEAD" })).status;
      const failed =
        status === 200
          ? `its evidence ${sha256} was captured restricted but is served to anyone (HEAD without credentials answered 200): restore its restriction`
          : status === 404
            ? `its evidence ${sha256} is not held (HEAD answered 404)`
            : null;
      if (failed) {
        report.failures.push(`${where}: ${failed}`);
        report.restrictedFailures += 1;
      }
      continue;
    }
    let served = seen.get(sha256);
    if (served === undefined) {
      const answer = await servedDigest(root, sha256, get);
      if (answer.sha256 === null && (answer.status === 401 || answer.status === 403)) {
        report.restricted += 1;
        continue;
      }
      if (answer.sha256 === null) {
        served = {
          failed: `its evidence ${sha256} is not served (GET answered ${answer.status}${answer.why})`,
        };
      } else if (answer.sha256 !== sha256) {
        served = { failed: `the bytes served for ${sha256} have SHA-256 ${answer.sha256}` };
      } else {
        served = answer.size;
        report.bytes += answer.size;
      }
      seen.set(sha256, served);
    }
    if (typeof served !== "number") {
      report.failures.push(`${where}: ${served.failed}`);
      continue;
    }
    if (served !== size) {
      report.failures.push(`${where}: its evidence ${sha256} is ${served} bytes, the event says ${size}`);
      continue;
    }
    report.checked += 1;
    if (report.checked % 100 === 0) progress?.(`${report.checked} captures checked`);
  }
  return report;
}
