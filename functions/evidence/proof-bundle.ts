import { Readable } from "node:stream";
import { Hono } from "hono";
import yazl from "yazl";
import { hashEvent, type StoredEvent } from "../../events/stored-event.js";
import { leafText } from "../../events/transparency/leaf.js";
import { inclusionProof } from "../../events/transparency/merkle.js";
import { formatProofFile } from "../../events/transparency/proof-file.js";
import { NotFoundError } from "../errors.js";
import type { AsyncAuthenticator } from "../http/async-auth.js";
import { hasRole } from "../http/auth.js";
import { acceptQuery, incidentToRead } from "../http/params.js";
import { notInLogYet } from "../http/routes/log.js";
import type { LogStore } from "../log/log-store.js";
import type { LogTiles } from "../log/log-tiles.js";
import type { Logger } from "../logger.js";
import type { AuditLog } from "../people/audit-log.js";
import { type BlobInfo, type BlobStore, KeptBytesCheck } from "./blob-store.js";

export interface ProofBundleDeps {
  logStore: LogStore;
  logTiles: LogTiles;
  findEvent: (incidentId: string, eventId: string) => Promise<StoredEvent | null>;
  verifierKey: () => Promise<string>;
  /** The evidence bytes; without a store the bundle carries none. */
  blobs?: BlobStore;
  /**
   * The smallest time-stamped checkpoint whose tree holds `leaves` leaves, with its DER RFC 3161
   * response, or null when none does yet (functions/log/timestamp-store.ts `covering`).
   */
  timestampCovering?: (
    leaves: number,
  ) => Promise<{ treeSize: number; token: Uint8Array; tsa: string } | null>;
  /** The archive's public origin, which the README names for its published key. */
  publicUrl?: () => string;
  /** Who may have restricted evidence put in a bundle (restricted readers); else it is left out. */
  readers?: AsyncAuthenticator;
  log?: Logger;
  /** Where each restricted read is recorded before the bundle goes out. */
  audit?: Pick<AuditLog, "recordEvidence">;
}

/** What the pages' desk builds bundles with: the same parts, read as its signed-in person. */
export type PagesBundle = Omit<ProofBundleDeps, "readers">;

const EVENT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The note text of a checkpoint, the body an RFC 3161 token's imprint covers. */
export const checkpointBody = (text: string) => `${text.split("\n\n")[0]}\n`;

/** The evidence an event rests on: its own bytes for a capture, else its evidence list. */
export function evidenceOfEvent(event: StoredEvent): string[] {
  if (event.type === "EvidenceCaptured") return [event.data.sha256 as string];
  return [...new Set(event.evidence ?? [])];
}

/** The README's one-line check of event.json's hash, in python3 (tested against the archive's own hashing). */
export const HASH_CHECK =
  'import json,hashlib;e=json.load(open("event.json",encoding="utf-8"));h=e.pop("hash");' +
  'print(hashlib.sha256(json.dumps(e,sort_keys=True,separators=(",",":"),ensure_ascii=False).encode()).hexdigest()==h)';

/** What became of each evidence file an event names: in the bundle, left out for its reader, or lost. */
type BundledEvidence = {
  sha256: string;
  held: "included" | "restricted" | "not-held";
  info: BlobInfo | null;
};

function readme(o: {
  event: StoredEvent;
  index: number;
  size: number;
  /** The TSA whose token the bundle carries, if it carries one. */
  tsa: string | null;
  origin: string | null;
  evidence: BundledEvidence[];
}): string {
  const withBytes = o.evidence.some((e) => e.held === "included");
  const vkeyAt = o.origin ? `${o.origin}/log/vkey` : "GET /log/vkey";
  // The event as stored no longer hashes to the hash its leaf names: said first, not left to
  // be found at step 2 (the bundle still holds what the archive has, as evidence of the change).
  const altered = hashEvent(o.event) !== o.event.hash;
  const lines = [
    ...(altered
      ? [
          "WARNING: event.json does not hash to its own hash field: the archive's stored copy of this",
          "event was altered after it was recorded and logged. The checks below fail on it.",
          "",
        ]
      : []),
    `Proof bundle for event ${o.event.eventId}: version ${o.event.version} of incident ${o.event.incidentId}.`,
    `It is leaf ${o.index} of the archive's transparency log, in the tree of size ${o.size}.`,
    "",
    "Files",
    "  event.json            the event exactly as the archive stores and serves it",
    "  event.tlog-proof      its inclusion proof in that tree (c2sp.org/tlog-proof@v1)",
    "  checkpoint.txt        the signed checkpoint of that tree, with any witness cosignatures",
    "  checkpoint-body.txt   the checkpoint's note text (origin, size, root): what a time-stamp covers",
    "  vkey.txt              the log's verifier key",
    ...(o.tsa !== null
      ? ["  checkpoint.tsr        an RFC 3161 time-stamp response over checkpoint-body.txt"]
      : []),
    ...(withBytes
      ? [
          "  evidence/<sha256>     the evidence bytes, each file named by its SHA-256",
          "  SHA256SUMS            those names, for sha256sum",
        ]
      : []),
    "",
    "How to check each piece",
    "",
  ];
  // Only the steps for what this bundle holds: without evidence bytes there is nothing to sha256sum.
  const steps: string[][] = [];
  if (withBytes) {
    steps.push([
      "The evidence bytes are the ones the event names:",
      "     sha256sum -c SHA256SUMS",
      "   and each hash is the event's data.sha256 (a capture) or in its evidence list.",
    ]);
  }
  steps.push([
    "The event is in the signed log (offline, no server; in this folder, with a copy of the",
    "   incident-ledger project at <project>, after npm install there):",
    '     npm --prefix <project> run verify -- --proof event.tlog-proof --event event.json --vkey "$(cat vkey.txt)"',
    "   The verifier recomputes the event's hash from event.json, its leaf, the inclusion proof",
    "   and the checkpoint's signature. Compare vkey.txt with the key the archive publishes",
    `   (${vkeyAt}) or a witness holds: the bundle alone cannot vouch for its own key.`,
  ]);
  steps.push([
    "Without the project, with standard tools (python3 here; any RFC 8785 library will do):",
    "   the event's hash is the SHA-256 (hex) of the RFC 8785 canonical JSON of event.json less",
    '   its "hash" member; True when it recomputes:',
    `     python3 -c '${HASH_CHECK}'`,
    "   (Python's sorted keys and number forms are RFC 8785's for the ASCII member names and the",
    "   whole or plain decimal numbers an event holds; a number with an exponent needs a library.)",
    "   Its log leaf is the SHA-256 of a 0x00 byte then the canonical JSON of",
    "   {eventId, hash, incidentId, version}; event.tlog-proof holds the hashes from that leaf to",
    "   the root in checkpoint.txt (RFC 9162, section 2.1.3.2), and checkpoint.txt is a signed note",
    "   (c2sp.org/signed-note) whose Ed25519 signature vkey.txt's key checks, as Go's",
    "   golang.org/x/mod/sumdb/note does.",
  ]);
  steps.push(
    o.tsa !== null
      ? [
          "The checkpoint existed at the time the authority states. First, checkpoint-body.txt is",
          "   the very checkpoint the proof is in (checkpoint.txt up to its blank line); no output",
          "   means the same:",
          "     awk '/^$/{exit} {print}' checkpoint.txt | cmp - checkpoint-body.txt",
          `   Then the time-stamp over it, from ${o.tsa || "the archive's time-stamping authority"}:`,
          "     openssl ts -reply -in checkpoint.tsr -text",
          "     openssl ts -verify -in checkpoint.tsr -data checkpoint-body.txt -CAfile <the TSA's CA certificate>",
          "   The CA certificate comes from the authority's operator, not from the archive.",
        ]
      : [
          "No RFC 3161 time-stamp over this checkpoint was held when the bundle was made: a later",
          "   one over a larger tree is listed at GET /log/timestamps, and GET /log/consistency shows",
          "   that tree extends this one.",
        ],
  );
  for (const [i, [first, ...rest]] of steps.entries()) lines.push(`${i + 1}. ${first}`, ...rest, "");
  const restricted = o.evidence.filter((e) => e.held === "restricted");
  if (restricted.length > 0) {
    lines.push(
      "Left out, restricted (a bundle made by a restricted reader holds them): the bytes of",
      ...restricted.map((e) => `  ${e.sha256}`),
      "",
    );
  }
  const lost = o.evidence.filter((e) => e.held === "not-held");
  if (lost.length > 0) {
    lines.push(
      "NOT HELD: the archive did not hold these bytes when it made this bundle, though the event",
      "names them (lost where they were kept); ask the archive to restore them from a copy:",
      ...lost.map((e) => `  ${e.sha256}`),
      "",
    );
  }
  return lines.join("\n");
}

/** GET /incidents/{incidentId}/events/{eventId}/bundle: a zip a court can keep. */
export function proofBundleRoutes(deps: ProofBundleDeps) {
  const kept = deps.blobs ? new KeptBytesCheck(deps.blobs) : null;
  const app = new Hono();
  app.get("/incidents/:incidentId/events/:eventId/bundle", acceptQuery(), async (c) => {
    const incidentId = incidentToRead(c);
    const eventId = c.req.param("eventId");
    const event = EVENT_ID.test(eventId) ? await deps.findEvent(incidentId, eventId) : null;
    if (!event) throw new NotFoundError(`no event ${eventId} in incident ${incidentId}`);
    const index = await deps.logStore.indexOf(incidentId, event.version);
    const latest = await deps.logStore.latestCheckpoint();
    if (index === null || !latest || index >= latest.size) {
      const leaf = { incidentId, eventId, version: event.version, index };
      return notInLogYet(c, leaf, "retry, or wait for it with GET …/proof?wait=true");
    }
    const headers = {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="${incidentId}-v${event.version}-bundle.zip"`,
      "Cache-Control": "no-store, no-transform",
    };
    // A HEAD reads no bytes, so it records no read of restricted ones.
    if (c.req.method === "HEAD") return c.body(null, 200, headers);
    // The checkpoint a time-stamp covers, where one covers this leaf: the proof is given in that
    // tree, so `openssl ts -verify` checks the very checkpoint the bundle carries. Else the latest.
    const stamped = (await deps.timestampCovering?.(index + 1)) ?? null;
    const stampedCheckpoint =
      stamped && stamped.treeSize <= latest.size ? await deps.logStore.checkpointAt(stamped.treeSize) : null;
    const checkpoint = stampedCheckpoint ?? latest;
    const token = stampedCheckpoint && stamped ? stamped.token : null;
    const leaf = { incidentId, version: event.version, eventId: event.eventId, hash: event.hash, index };
    const inclusion = await inclusionProof(index, checkpoint.size, deps.logTiles.nodeReader(checkpoint.size));
    const proof = formatProofFile({ extra: leafText(leaf), index, inclusion, checkpoint: checkpoint.text });
    const vkey = await deps.verifierKey().catch(() => null);

    const reader = deps.readers ? await deps.readers(c) : null;
    const evidence = await Promise.all(
      evidenceOfEvent(event).map(async (sha256) => {
        const info = (await deps.blobs?.head(sha256)) ?? null;
        if (!info) {
          // Bytes an appended event names were held when it was appended: these are lost.
          deps.log?.error("Evidence named by an event is not held", {
            incidentId,
            eventId: event.eventId,
            sha256,
          });
          return { sha256, held: "not-held", info } satisfies BundledEvidence;
        }
        const allowed = info.access !== "restricted" || hasRole(reader, "restricted-reader");
        if (allowed && info.access === "restricted") {
          const at = new Date().toISOString();
          const who = reader?.name ?? "";
          await deps.audit?.recordEvidence({
            who,
            sha256,
            via: "bundle",
            at,
            incidentId,
            eventId: event.eventId,
          });
          deps.log?.info("restricted evidence read", {
            audit: "restricted-evidence-read",
            reader: who,
            sha256,
            via: "bundle",
            at,
          });
        }
        return { sha256, held: allowed ? "included" : "restricted", info } satisfies BundledEvidence;
      }),
    );

    const included = evidence.filter((e) => e.held === "included");
    // Before the first byte of the bundle: a bundle never carries altered evidence, nor breaks
    // off. It goes to a court: its bytes are hashed again each time, whatever an earlier read
    // found (an alteration that kept the file's size and time is seen too).
    for (const e of included) if (e.info) await kept?.check(e.info, { again: true });

    const zip = new yazl.ZipFile();
    const mtime = new Date(event.recordedAt);
    const add = (name: string, text: string | Uint8Array) =>
      zip.addBuffer(Buffer.from(text), name, { mtime, mode: 0o100644 });
    const origin = deps.publicUrl?.() ?? null;
    add(
      "README.txt",
      readme({
        event,
        index,
        size: checkpoint.size,
        tsa: token ? (stamped?.tsa ?? "") : null,
        origin,
        evidence,
      }),
    );
    add("event.json", JSON.stringify(event));
    add("event.tlog-proof", proof);
    add("checkpoint.txt", checkpoint.text);
    add("checkpoint-body.txt", checkpointBody(checkpoint.text));
    if (vkey) add("vkey.txt", `${vkey}\n`);
    if (token) add("checkpoint.tsr", token);
    if (included.length > 0 && deps.blobs) {
      add("SHA256SUMS", included.map((e) => `${e.sha256}  evidence/${e.sha256}\n`).join(""));
      for (const e of included) {
        const bytes = Readable.fromWeb(
          (await deps.blobs.read(e.sha256)) as import("node:stream/web").ReadableStream,
        );
        zip.addReadStream(bytes, `evidence/${e.sha256}`, { mtime, mode: 0o100644, compress: false });
      }
    }
    zip.end();
    return c.body(Readable.toWeb(zip.outputStream as Readable) as ReadableStream<Uint8Array>, 200, headers);
  });
  return app;
}
