import { createHash } from "node:crypto";
import { ACLED_HEADER, acledRecord } from "../../events/export/acled-row.js";
import { INCIDENT_HEADER, incidentRecord } from "../../events/export/incident-row.js";
import { UCDP_HEADER, ucdpRecord } from "../../events/export/ucdp-row.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { summarize } from "../../events/summarize.js";
import { fold, type IncidentState } from "../../events/summary.js";
import { leafHashOf } from "../../events/transparency/leaf.js";
import { type Hash, rootOf } from "../../events/transparency/merkle.js";
import type { VerifierKey } from "../../events/transparency/note.js";
import type { Policy } from "../../events/transparency/policy.js";
import { checkSignedCheckpoint, IncidentCheck, LoggedLeaves, VerificationError } from "./checks.js";

/**
 * `npm run verify -- --url <base> --release <name> --vkey <vkey> [--policy <file>]`: rebuilds a release's incidents.csv,
 * events.ndjson, ucdp-ged.csv and acled.csv from the archive's public feed, with the pure domain code only (events/), and
 * compares their bytes with the server's exports at the release's tree size. It also recomputes
 * the Merkle root of the feed's leaves and compares it with the release's root, checks the
 * release's checkpoint is signed by the log's key, and recomputes every event's hash from its
 * content and its link to the one before: so the rebuilt files are tied to the signed
 * checkpoint, and an event edited in place (its stored hash kept) cannot pass as the release.
 */

export interface ReleaseInfo {
  name: string;
  treeSize: number;
  root: string;
  /** The signed checkpoint the release names. */
  checkpoint: string;
}

export interface ExportComparison {
  file: "incidents.csv" | "events.ndjson" | "ucdp-ged.csv" | "acled.csv";
  ok: boolean;
  rebuiltSha256: string;
  serverSha256: string;
  rebuiltBytes: number;
  serverBytes: number;
}

export interface RebuildReport {
  release: Omit<ReleaseInfo, "checkpoint">;
  /** The release's checkpoint is signed by the log's key and states its tree size and root. */
  checkpointOk: boolean;
  /** Why the checkpoint fails, or null. */
  checkpointProblem: string | null;
  /** The first event whose hash does not recompute or whose link is broken, or null. */
  chainProblem: string | null;
  rootOk: boolean;
  rebuiltRoot: string;
  exports: ExportComparison[];
  ok: boolean;
}

export interface RebuiltExports {
  csv: string;
  /** The same rows in the UCDP GED and ACLED layouts (docs/reference/codebook.md). */
  ucdpCsv: string;
  acledCsv: string;
  ndjsonSha256: string;
  ndjsonBytes: number;
  root: string;
  /** The first event whose hash does not recompute or whose link is broken, or null. */
  chainProblem: string | null;
}

const FEED_PAGE = 1000;

/** The feed's first `treeSize` events, page by page. */
export async function* feedEvents(
  base: string,
  treeSize: number,
  get: typeof fetch = fetch,
): AsyncGenerator<{ index: number; event: StoredEvent }> {
  let after = -1;
  while (after + 1 < treeSize) {
    const limit = Math.min(FEED_PAGE, treeSize - after - 1);
    const answer = await get(`${base}/feed?after=${after}&limit=${limit}`);
    if (!answer.ok) throw new Error(`GET /feed?after=${after} answered ${answer.status}`);
    const page = (await answer.json()) as { items: { index: number; event: StoredEvent }[] };
    if (page.items.length === 0)
      throw new Error(`the feed ends at index ${after}, before tree size ${treeSize}`);
    for (const item of page.items) {
      if (item.index !== after + 1) throw new Error(`the feed skipped from index ${after} to ${item.index}`);
      after = item.index;
      if (after >= treeSize) return;
      yield item;
    }
  }
}

/**
 * Both exports from the feed: the NDJSON as a digest (it can be far larger than memory needs
 * to be), the CSV in full (one row per incident), and the root of the leaves.
 */
export async function rebuildExports(
  base: string,
  treeSize: number,
  get: typeof fetch = fetch,
): Promise<RebuiltExports> {
  const ndjson = createHash("sha256");
  let ndjsonBytes = 0;
  const states = new Map<string, IncidentState>();
  const leafHashes: Hash[] = [];
  const encoder = new TextEncoder();
  // fold() copies the state it starts from: fold each incident's events a page at a time.
  let pending = new Map<string, StoredEvent[]>();
  const foldPending = () => {
    for (const [id, events] of pending) states.set(id, fold(id, events, states.get(id)));
    pending = new Map();
  };
  // Each incident's chain, event by event, as a full verify checks it (no leaves to hold here:
  // the root below ties the events to the checkpoint).
  const chains = new Map<string, IncidentCheck>();
  let chainProblem: string | null = null;
  let seen = 0;
  for await (const { event } of feedEvents(base, treeSize, get)) {
    if (chainProblem === null) {
      let chain = chains.get(event.incidentId);
      if (!chain) {
        chain = new IncidentCheck(event.incidentId, new LoggedLeaves());
        chains.set(event.incidentId, chain);
      }
      try {
        chain.event(event);
      } catch (error) {
        if (!(error instanceof VerificationError)) throw error;
        chainProblem = error.message;
      }
    }
    const line = encoder.encode(`${JSON.stringify(event)}\n`);
    ndjson.update(line);
    ndjsonBytes += line.length;
    leafHashes.push(leafHashOf(event));
    const list = pending.get(event.incidentId) ?? [];
    list.push(event);
    pending.set(event.incidentId, list);
    if (++seen % FEED_PAGE === 0) foldPending();
  }
  foldPending();
  const ids = [...states.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const summaries = ids.map((id) => summarize(states.get(id) as IncidentState));
  const csv = INCIDENT_HEADER + summaries.map(incidentRecord).join("");
  return {
    csv,
    ucdpCsv: UCDP_HEADER + summaries.map(ucdpRecord).join(""),
    acledCsv: ACLED_HEADER + summaries.map(acledRecord).join(""),
    ndjsonSha256: ndjson.digest("hex"),
    ndjsonBytes,
    root: Buffer.from(rootOf(leafHashes)).toString("base64"),
    chainProblem,
  };
}

async function digestOf(answer: Response): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  if (!answer.body) return { sha256: hash.digest("hex"), bytes };
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

export async function rebuildRelease(
  base: string,
  name: string,
  logKey: VerifierKey,
  get: typeof fetch = fetch,
  policy?: Policy,
): Promise<RebuildReport> {
  const answer = await get(`${base}/releases/${encodeURIComponent(name)}`);
  if (!answer.ok) throw new Error(`GET /releases/${name} answered ${answer.status}: no such release?`);
  const release = (await answer.json()) as ReleaseInfo;
  const rebuilt = await rebuildExports(base, release.treeSize, get);
  const csvAnswer = await get(`${base}/export/incidents.csv?treeSize=${release.treeSize}`);
  const ndjsonAnswer = await get(`${base}/export/events.ndjson?treeSize=${release.treeSize}`);
  if (!csvAnswer.ok || !ndjsonAnswer.ok) {
    throw new Error(
      `the exports at tree size ${release.treeSize} answered ${csvAnswer.status}/${ndjsonAnswer.status}`,
    );
  }
  const csvServer = await digestOf(csvAnswer);
  const ndjsonServer = await digestOf(ndjsonAnswer);
  const csvBytes = new TextEncoder().encode(rebuilt.csv);
  const csvSha = createHash("sha256").update(csvBytes).digest("hex");
  const exports: ExportComparison[] = [
    {
      file: "incidents.csv",
      ok: csvSha === csvServer.sha256,
      rebuiltSha256: csvSha,
      serverSha256: csvServer.sha256,
      rebuiltBytes: csvBytes.length,
      serverBytes: csvServer.bytes,
    },
    {
      file: "events.ndjson",
      ok: rebuilt.ndjsonSha256 === ndjsonServer.sha256,
      rebuiltSha256: rebuilt.ndjsonSha256,
      serverSha256: ndjsonServer.sha256,
      rebuiltBytes: rebuilt.ndjsonBytes,
      serverBytes: ndjsonServer.bytes,
    },
  ];
  // The research layouts: the same rows, rebuilt from the same folds.
  for (const [file, text] of [
    ["ucdp-ged.csv", rebuilt.ucdpCsv],
    ["acled.csv", rebuilt.acledCsv],
  ] as const) {
    const layoutAnswer = await get(`${base}/export/${file}?treeSize=${release.treeSize}`);
    if (!layoutAnswer.ok)
      throw new Error(`${file} at tree size ${release.treeSize} answered ${layoutAnswer.status}`);
    const server = await digestOf(layoutAnswer);
    const bytes = new TextEncoder().encode(text);
    const sha = createHash("sha256").update(bytes).digest("hex");
    exports.push({
      file,
      ok: sha === server.sha256,
      rebuiltSha256: sha,
      serverSha256: server.sha256,
      rebuiltBytes: bytes.length,
      serverBytes: server.bytes,
    });
  }
  const rootOk = rebuilt.root === release.root;
  let checkpointProblem: string | null = null;
  try {
    const body = checkSignedCheckpoint(release.checkpoint, logKey, policy);
    if (body.size !== release.treeSize || Buffer.from(body.root).toString("base64") !== release.root)
      checkpointProblem = `it states tree size ${body.size}, root ${Buffer.from(body.root).toString("base64")}`;
  } catch (error) {
    if (!(error instanceof VerificationError)) throw error;
    checkpointProblem = error.message;
  }
  const checkpointOk = checkpointProblem === null;
  return {
    release: { name: release.name, treeSize: release.treeSize, root: release.root },
    checkpointOk,
    checkpointProblem,
    chainProblem: rebuilt.chainProblem,
    rootOk,
    rebuiltRoot: rebuilt.root,
    exports,
    ok: checkpointOk && rebuilt.chainProblem === null && rootOk && exports.every((e) => e.ok),
  };
}

/** The lines the verifier prints for `--release`; the first failing line says what differs. */
export function describeRebuild(report: RebuildReport): string[] {
  const r = report.release;
  return [
    `release ${r.name}: tree size ${r.treeSize}, root ${r.root}`,
    report.checkpointOk
      ? "  its checkpoint is signed by the log's key and states the same tree size and root"
      : `  FAIL its checkpoint: ${report.checkpointProblem}`,
    report.chainProblem === null
      ? "  every event's hash recomputes from its content and links to the one before"
      : `  FAIL ${report.chainProblem}`,
    report.rootOk
      ? "  root recomputed from the feed's events: matches"
      : `  FAIL root recomputed from the feed's events is ${report.rebuiltRoot}, not the release's ${r.root}`,
    ...report.exports.map((e) =>
      e.ok
        ? `  ${e.file}: rebuilt from the feed, ${e.rebuiltBytes} bytes, identical to the server's (sha256 ${e.rebuiltSha256})`
        : `  FAIL ${e.file}: rebuilt ${e.rebuiltBytes} bytes sha256 ${e.rebuiltSha256}, server sent ${e.serverBytes} bytes sha256 ${e.serverSha256}`,
    ),
  ];
}
