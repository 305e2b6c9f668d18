import { sourceKey } from "../source-key.js";
import type { Summary } from "../summarize.js";
import type { CasualtyReport, IncidentState } from "../summary.js";

/** A verdict on a casualty report: the summary counts only each report's latest. */
export interface FigureVerdict {
  eventId: string;
  verdict: string;
}

/** The assessments of an incident's casualty reports, which its summary does not list. */
export interface FigureAssessments {
  /** The live assessments of one report, the newest last. */
  of(eventId: string): FigureVerdict[];
  /** The live assessments a source (by any of its keys) made of the reports, as `assessed` rows. */
  madeBy(keys: ReadonlySet<string>): { eventId: string; targetEventId: string; verdict: string }[];
}

const NONE: FigureAssessments = { of: () => [], madeBy: () => [] };

/**
 * From the fold state, which keeps each kept report's latest live assessments (the summary's
 * `best` leaves out a report whose latest is false, without saying which).
 */
export function figureAssessments(state: IncidentState): FigureAssessments {
  const reports = new Map<string, CasualtyReport>();
  for (const category of Object.values(state.casualties))
    for (const source of Object.values(category.sources))
      for (const report of source.recent) if (report.verdicts?.length) reports.set(report.eventId, report);
  return {
    of: (eventId) =>
      (reports.get(eventId)?.verdicts ?? []).map(({ eventId, verdict }) => ({ eventId, verdict })),
    madeBy: (keys) =>
      [...reports.values()].flatMap((report) =>
        (report.verdicts ?? [])
          .filter((v) => v.by !== undefined && keys.has(v.by))
          .map((v) => ({ eventId: v.eventId, targetEventId: report.eventId, verdict: v.verdict })),
      ),
  };
}

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
    /** Its live assessments, the newest last (at most the few the fold keeps of each report). */
    assessments: FigureVerdict[];
  }[];
  /** What the source said or published: `speaker` who said it, `publisher` who published it. */
  statements: {
    eventId: string;
    quote: string;
    stance: string;
    speaker: string;
    publisher?: string;
    assessments: unknown[];
  }[];
  denials: {
    eventId: string;
    claim: string;
    counterClaim?: string;
    status: string;
    speaker: string;
    publisher?: string;
    assessments: unknown[];
  }[];
  /** Assessments this source made of others' statements, denials and figures. */
  assessed: { eventId: string; targetEventId: string; verdict: string }[];
  /**
   * Where the incident's rows its summary leaves out are paged (its statements past the latest,
   * denials past 100, a category's sources past 100): this source may be named there too.
   */
  more: string[];
}

/**
 * A speaker as this record names them: a private person by their pseudonym, never their sealed
 * name, and said to be one, as the pages say it ("private source witness-A"), so that a
 * pseudonym an official also bears is not read as that official.
 */
const shownName = (who: { name: string; kind?: string; ref?: string }): string =>
  who.kind === "private" ? `private source ${who.ref ?? ""}`.trim() : who.name;

/** The incident's sub-resources that page rows its summary does not list. */
function notListed(summary: Summary): string[] {
  const incident = `/incidents/${encodeURIComponent(summary.incidentId)}`;
  const paths: string[] = [];
  for (const [category, entry] of Object.entries(summary.casualties ?? {}))
    if ((entry.sourceCount ?? 0) > (entry.bySource?.length ?? 0))
      paths.push(`${incident}/casualties/${encodeURIComponent(category)}/sources`);
  if ((summary.statements?.count ?? 0) > (summary.statements?.latest?.length ?? 0))
    paths.push(`${incident}/statements`);
  if ((summary.denialCount ?? 0) > (summary.denials?.length ?? 0)) paths.push(`${incident}/denials`);
  return paths;
}

/**
 * The rows of an incident's summary that name one of `keys` as speaker (attributedTo) or publisher, with
 * the assessments of figures (`figures`, from figureAssessments). A summary holds at most 100
 * rows of each list (bounds), so an incident with more shows its latest.
 */
export function sourceRecord(
  summary: Summary,
  keys: ReadonlySet<string>,
  figures: FigureAssessments = NONE,
): SourceRecord {
  // A private person's name is sealed (a commitment in the row): they are known by their pseudonym.
  const is = (who: { name: string; kind?: string; ref?: string } | undefined) =>
    who !== undefined && (who.kind === "private" || typeof who.name === "string") && keys.has(sourceKey(who));
  const record: SourceRecord = {
    incidentId: summary.incidentId,
    title: summary.title,
    occurred: summary.occurredOn ?? summary.occurredAt,
    location: summary.location,
    figures: [],
    statements: [],
    denials: [],
    assessed: [],
    more: notListed(summary),
  };
  const publishes = (publisher: string | undefined) =>
    publisher !== undefined && keys.has(sourceKey({ name: publisher }));
  for (const [category, entry] of Object.entries(summary.casualties ?? {})) {
    for (const row of entry.bySource ?? []) {
      if (is(row.attributedTo) || publishes(row.publisher)) {
        record.figures.push({
          category,
          figure: row.figure,
          publisher: row.publisher,
          speaker: shownName(row.attributedTo),
          eventId: row.eventId,
          version: row.version,
          assessments: figures.of(row.eventId),
        });
      }
    }
  }
  for (const s of summary.statements?.latest ?? []) {
    if (is(s.attributedTo) || publishes(s.publisher)) {
      record.statements.push({
        eventId: s.eventId,
        quote: s.quote,
        stance: s.stance,
        speaker: shownName(s.attributedTo),
        ...(s.publisher !== undefined ? { publisher: s.publisher } : {}),
        assessments: s.assessments ?? [],
      });
    }
    for (const a of s.assessments ?? []) {
      if (is(a.attributedTo))
        record.assessed.push({ eventId: a.eventId, targetEventId: s.eventId, verdict: a.verdict });
    }
  }
  for (const d of summary.denials ?? []) {
    if (is(d.attributedTo) || publishes(d.publisher)) {
      record.denials.push({
        eventId: d.eventId,
        claim: d.claim,
        ...(d.counterClaim ? { counterClaim: d.counterClaim } : {}),
        status: d.status,
        speaker: shownName(d.attributedTo),
        ...(d.publisher !== undefined ? { publisher: d.publisher } : {}),
        assessments: d.assessments ?? [],
      });
    }
    for (const a of d.assessments ?? []) {
      if (is(a.attributedTo))
        record.assessed.push({ eventId: a.eventId, targetEventId: d.eventId, verdict: a.verdict });
    }
  }
  record.assessed.push(...figures.madeBy(keys));
  return record;
}
