import { INCIDENT_ID_PATTERN } from "../schemas.js";
import { clientSealedPaths } from "../sealing.js";
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
 * One line of an archive's `events.ndjson` export (a stored event; the line's place is its log
 * index) re-recorded as a new envelope: the same incident, type, source, speaker and data, a new
 * `eventId` derived from the export's identity and the original id (so references between the
 * export's events — `targetEventId` — are renamed the same way), and `importedFrom` naming
 * where it was first recorded.
 *
 * `exportId` names the export whatever its file is called: the digest of its first line, the
 * first event of that archive's log, which an append-only log never changes.
 */
export function ndjsonRow(line: unknown, index: number, exportId: string, origin: string): MappedRow {
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
