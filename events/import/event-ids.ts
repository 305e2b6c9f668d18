import { createHash } from "node:crypto";

/**
 * An imported event's id: a digest of what identifies its row (the format, the file's own
 * identity where it has one, the row's content, the event's place in the row), so importing the
 * same file again, or resuming one that stopped, names every event as before and the archive
 * stores it once. 46 characters of the EventId alphabet.
 */
export function importEventId(parts: readonly string[]): string {
  const digest = createHash("sha256").update(parts.join("\u0000")).digest("base64url");
  return `im-${digest.slice(0, 43)}`;
}

/**
 * A dataset's opening of an incident, by what it says: the same opening from a revised row (a
 * new figure, a new timestamp) has the same id, so it is stored once and the row's new figure
 * goes in after it. Its content is built by the importer in a fixed key order.
 */
export function openingEventId(format: string, incidentId: string, opening: Record<string, unknown>): string {
  return importEventId([format, incidentId, "opening", JSON.stringify(opening)]);
}

/** What a data row is, for its ids: its cells in header order (a reordered file keeps its ids). */
export function rowIdentity(header: readonly string[], cells: readonly string[]): string {
  const pairs = header.map((name, i): [string, string] => [name, cells[i] ?? ""]);
  return JSON.stringify(pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
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
