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

/** A link this incident posted, as its summary lists it. */
export function outgoingRow(l: LinkRow): LinkSummary {
  return {
    incidentId: l.otherIncidentId,
    relation: l.relation,
    direction: "outgoing",
    eventId: l.eventId,
    version: l.version,
    recordedAt: l.recordedAt,
    attributedTo: l.attributedTo,
  };
}

/** A link another incident posted naming this one, as this incident's summary lists it. */
export function incomingRow(l: IncomingLink): LinkSummary {
  return {
    incidentId: l.fromIncidentId,
    relation: l.relation,
    direction: "incoming",
    eventId: l.eventId,
    version: l.version,
    recordedAt: l.recordedAt,
    attributedTo: l.attributedTo,
  };
}

/** The most recently recorded first; within one moment (one batch) the later version, then by id. */
const newestFirst = (a: LinkSummary, b: LinkSummary) =>
  a.recordedAt !== b.recordedAt
    ? a.recordedAt < b.recordedAt
      ? 1
      : -1
    : a.version !== b.version
      ? b.version - a.version
      : a.incidentId < b.incidentId
        ? -1
        : a.incidentId > b.incidentId
          ? 1
          : 0;

/**
 * The summary with the links other incidents posted naming it. `until`: only those recorded by
 * then (a past view); the index keeps each other incident's current link to this one.
 */
export function withIncoming(summary: Summary, incoming: readonly IncomingLink[], until?: string): Summary {
  const rows = incoming.filter((l) => until === undefined || l.recordedAt <= until).map(incomingRow);
  if (rows.length === 0) return summary;
  // A view stored before links existed has none of its own: it is brought up to date by its next projection.
  const own = summary.links ?? { count: 0, items: [] };
  const items = [...own.items, ...rows].sort(newestFirst).slice(0, LINKS_LISTED);
  return { ...summary, links: { count: own.count + rows.length, items } };
}

/** Every current link of an incident, both directions, the most recent first: the summary's `links.items` whole. */
export function allLinks(own: readonly LinkRow[], incoming: readonly IncomingLink[]): LinkSummary[] {
  return [...own.map(outgoingRow), ...incoming.map(incomingRow)].sort(newestFirst);
}
