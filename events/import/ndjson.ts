import { INCIDENT_ID_PATTERN } from "../schemas.js";
import { clientSealedPaths } from "../sealing.js";
import { hashEvent, type StoredEvent } from "../stored-event.js";
import { importEventId } from "./event-ids.js";
import { fail, type MappedRow } from "./rows.js";

/** What the server adds to an envelope: dropped, and the event re-recorded here. */
const SERVER_FIELDS = [
  "incidentId",
  "version",
  "recordedAt",
  "recordedBy",
  "prevHash",
  "hash",
  "importedFrom",
  "schemaVersion",
];
const TARGETING = new Set(["ClaimAssessed", "ReportRetracted", "RedactionApplied"]);

/**
 * Each incident's last event read from an export (its version and chain hash): the next event of
 * that incident must link to it. One entry an incident, not an event.
 */
export type ExportChains = Map<string, { version: number; hash: string }>;

/**
 * One line of an archive's `events.ndjson` export (a stored event; the line's place is its log
 * index) re-recorded as a new envelope: the same incident, type, source, speaker and data, a new
 * `eventId` derived from the export's identity and the original id (so references between the
 * export's events — `targetEventId` — are renamed the same way), and `importedFrom` naming
 * where it was first recorded.
 *
 * `exportId` names the export whatever its file is called: the digest of its first line, the
 * first event of that archive's log, which an append-only log never changes.
 */
export function ndjsonRow(
  line: unknown,
  index: number,
  exportId: string,
  origin: string,
  chains: ExportChains = new Map(),
): MappedRow {
  if (typeof line !== "object" || line === null || Array.isArray(line)) {
    return fail("(line)", "must be a JSON object: one stored event");
  }
  const stored = line as Record<string, unknown>;
  const incidentId = stored.incidentId;
  if (typeof incidentId !== "string" || !INCIDENT_ID_PATTERN.test(incidentId)) {
    return fail("incidentId", "must be the stored event's incident id");
  }
  if (typeof stored.eventId !== "string" || stored.eventId === "") return fail("eventId", "is required");
  if (typeof stored.hash !== "string" || !/^[0-9a-f]{64}$/.test(stored.hash)) {
    return fail("hash", "must be the stored event's chain hash (64 lowercase hex digits)");
  }
  // Each line is checked against the one before it in its incident, as it says it is: a changed
  // line fails alone, and the lines after it, which link to what it claims, go on.
  const before = chains.get(incidentId);
  chains.set(incidentId, { version: Number(stored.version), hash: stored.hash });
  // `importedFrom` vouches for where the event was first recorded: only for the event as it was.
  if (hashEvent(stored as unknown as StoredEvent) !== stored.hash) {
    return fail(
      "hash",
      "does not recompute from the event (the SHA-256 of its RFC 8785 JSON less its hash): the line was changed after its archive wrote it, so it is not re-recorded",
    );
  }
  if (before && (stored.version !== before.version + 1 || stored.prevHash !== before.hash)) {
    return fail(
      "prevHash",
      `must link to the incident's event before it in the export (version ${before.version}, hash ${before.hash}): an event of its chain was left out or changed, so it is not re-recorded`,
    );
  }
  // An export carries a sealed value's commitment, never the value: the API takes values only.
  const sealed = clientSealedPaths({ attributedTo: stored.attributedTo, data: stored.data });
  if (sealed.length > 0) {
    return {
      ok: false,
      errors: sealed.map((path) => ({
        path: path.replace(/\.\$sealed$/, ""),
        message:
          "is sealed: an export holds its commitment, not the value, so this event cannot be re-recorded; record it again with its values (a restricted-reader reads them at the source archive)",
      })),
    };
  }
  const envelope: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) if (!SERVER_FIELDS.includes(key)) envelope[key] = value;
  envelope.eventId = importEventId(["ndjson", exportId, stored.eventId]);
  const data = stored.data;
  if (TARGETING.has(String(stored.type)) && typeof data === "object" && data !== null) {
    const target = (data as Record<string, unknown>).targetEventId;
    if (typeof target === "string") {
      envelope.data = { ...data, targetEventId: importEventId(["ndjson", exportId, target]) };
    }
  }
  envelope.importedFrom = { origin, index, hash: stored.hash };
  return { ok: true, incidentId, events: [envelope] };
}
