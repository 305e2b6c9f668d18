import { sourceKey } from "../source-key.js";
import type { Summary } from "../summarize.js";

/** What one source or speaker said about one incident, and how it was assessed: a row of its page. */
export interface SourceRecord {
  incidentId: string;
  title: string | null;
  occurred: string | null;
  location: Summary["location"];
  figures: {
    category: string;
    figure: unknown;
    publisher: string;
    speaker: string;
    eventId: string;
    version: number;
  }[];
  statements: { eventId: string; quote: string; stance: string; assessments: unknown[] }[];
  denials: {
    eventId: string;
    claim: string;
    counterClaim?: string;
    status: string;
    assessments: unknown[];
  }[];
  /** Assessments this source made of others' statements and denials. */
  assessed: { eventId: string; targetEventId: string; verdict: string }[];
}

/**
 * The rows of an incident's summary that name `key` as speaker (attributedTo) or publisher. A
 * summary holds at most 100 rows of each list (bounds), so an incident with more shows its latest.
 */
export function sourceRecord(summary: Summary, key: string): SourceRecord {
  const is = (who: { name: string; kind?: string; ref?: string } | undefined) =>
    who !== undefined && typeof who.name === "string" && sourceKey(who) === key;
  const record: SourceRecord = {
    incidentId: summary.incidentId,
    title: summary.title,
    occurred: summary.occurredOn ?? summary.occurredAt,
    location: summary.location,
    figures: [],
    statements: [],
    denials: [],
    assessed: [],
  };
  for (const [category, entry] of Object.entries(summary.casualties ?? {})) {
    for (const row of entry.bySource ?? []) {
      if (is(row.attributedTo) || sourceKey({ name: row.publisher ?? "" }) === key) {
        record.figures.push({
          category,
          figure: row.figure,
          publisher: row.publisher,
          speaker: row.attributedTo.name,
          eventId: row.eventId,
          version: row.version,
        });
      }
    }
  }
  for (const s of summary.statements?.latest ?? []) {
    if (is(s.attributedTo)) {
      record.statements.push({
        eventId: s.eventId,
        quote: s.quote,
        stance: s.stance,
        assessments: s.assessments ?? [],
      });
    }
    for (const a of s.assessments ?? []) {
      if (is(a.attributedTo))
        record.assessed.push({ eventId: a.eventId, targetEventId: s.eventId, verdict: a.verdict });
    }
  }
  for (const d of summary.denials ?? []) {
    if (is(d.attributedTo)) {
      record.denials.push({
        eventId: d.eventId,
        claim: d.claim,
        ...(d.counterClaim ? { counterClaim: d.counterClaim } : {}),
        status: d.status,
        assessments: d.assessments ?? [],
      });
    }
    for (const a of d.assessments ?? []) {
      if (is(a.attributedTo))
        record.assessed.push({ eventId: a.eventId, targetEventId: d.eventId, verdict: a.verdict });
    }
  }
  return record;
}
