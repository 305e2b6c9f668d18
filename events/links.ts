import type { LinkRow } from "./editorial.js";
import type { LinkSummary, Summary } from "./summarize.js";

/** Links a summary lists, both directions together, the most recent first. */
export const LINKS_LISTED = 100;

/** A link posted on `fromIncidentId` naming this incident, as the link index keeps it. */
export interface IncomingLink {
  fromIncidentId: string;
  eventId: string;
  version: number;
  recordedAt: string;
  relation: LinkRow["relation"];
  attributedTo: LinkRow["attributedTo"];
}

export function incomingOf(fromIncidentId: string, link: LinkRow): IncomingLink {
  return {
    fromIncidentId,
    eventId: link.eventId,
    version: link.version,
    recordedAt: link.recordedAt,
    relation: link.relation,
    attributedTo: link.attributedTo,
  };
}

const newestFirst = (a: LinkSummary, b: LinkSummary) =>
  a.recordedAt === b.recordedAt
    ? a.incidentId < b.incidentId
      ? -1
      : a.incidentId > b.incidentId
        ? 1
        : 0
    : a.recordedAt < b.recordedAt
      ? 1
      : -1;

/**
 * The summary with the links other incidents posted naming it. `until`: only those recorded by
 * then (a past view); the index keeps each other incident's current link to this one.
 */
export function withIncoming(summary: Summary, incoming: readonly IncomingLink[], until?: string): Summary {
  const rows = incoming
    .filter((l) => until === undefined || l.recordedAt <= until)
    .map(
      (l): LinkSummary => ({
        incidentId: l.fromIncidentId,
        relation: l.relation,
        direction: "incoming",
        eventId: l.eventId,
        version: l.version,
        recordedAt: l.recordedAt,
        attributedTo: l.attributedTo,
      }),
    );
  if (rows.length === 0) return summary;
  // A view stored before links existed has none of its own: it is brought up to date by its next projection.
  const own = summary.links ?? { count: 0, items: [] };
  const items = [...own.items, ...rows].sort(newestFirst).slice(0, LINKS_LISTED);
  return { ...summary, links: { count: own.count + rows.length, items } };
}
