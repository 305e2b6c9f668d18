import { createHash } from "node:crypto";
import { canonicalJson } from "../stored-event.js";

/**
 * An imported event's id: a digest of what identifies it (the format, and the file's own
 * identity or the event's incident and content), so importing the same file again, or resuming
 * one that stopped, names every event as before and the archive stores it once. 46 characters
 * of the EventId alphabet.
 */
export function importEventId(parts: readonly string[]): string {
  const digest = createHash("sha256").update(parts.join("\u0000")).digest("base64url");
  return `im-${digest.slice(0, 43)}`;
}

/**
 * An event a row makes (ACLED's, UCDP GED's, a mapped CSV's), by what the event says: a row the
 * dataset revised, or a mapping put right, gives its unchanged events the same ids, stored once,
 * and only what changed goes in (an ACLED figure names the row's edit time, so it changes with it).
 */
export function datasetEventId(format: string, incidentId: string, event: Record<string, unknown>): string {
  return importEventId([format, incidentId, canonicalJson(event)]);
}

/** An incident slug from free text: lowercase a-z, 0-9 and -, 3–96 characters; null if none is left. */
export function slugify(text: string, prefix = ""): string | null {
  const slug = `${prefix}${text}`
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 96)
    .replace(/-+$/g, "");
  return slug.length >= 3 ? slug : null;
}
