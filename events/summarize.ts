import { combineBounds } from "./figures.js";
import type { Attribution, Figure, Location } from "./schemas.js";
import {
  type AssessmentRow,
  type CasualtyReport,
  type CategoryState,
  type IncidentState,
  LATEST_STATEMENTS,
  type StatementRow,
} from "./summary.js";

export interface SourcedFigure {
  figure: Figure;
  attributedTo: Attribution;
  publisher: string;
  eventId: string;
  version: number;
  recordedAt: string;
}

export interface CasualtySummary {
  low: number | null;
  high: number | null;
  latest: SourcedFigure | null;
  bySource: SourcedFigure[];
  reports: number;
}

export interface AssessmentSummary {
  eventId: string;
  verdict: AssessmentRow["verdict"];
  attributedTo: Attribution;
  reasoning?: string;
  version: number;
}

export type DenialStatus = "unassessed" | AssessmentRow["verdict"];

export interface Summary {
  incidentId: string;
  version: number;
  title: string | null;
  kind: string | null;
  location: Location | null;
  occurredAt: string | null;
  occurredOn: string | null;
  description: string | null;
  firstRecordedAt: string | null;
  lastRecordedAt: string | null;
  casualties: Record<string, CasualtySummary>;
  statements: {
    count: number;
    latest: (Omit<StatementRow, "recordedAt"> & { recordedAt: string; assessments: AssessmentSummary[] })[];
  };
  denials: {
    eventId: string;
    attributedTo: Attribution;
    claim: string;
    counterClaim?: string;
    quote?: string;
    version: number;
    recordedAt: string;
    assessments: AssessmentSummary[];
    status: DenialStatus;
  }[];
  contested: boolean;
  retractedEventIds: string[];
  headHash: string;
}

function sourced(r: CasualtyReport): SourcedFigure {
  return {
    figure: r.figure,
    attributedTo: r.attributedTo,
    publisher: r.publisher,
    eventId: r.eventId,
    version: r.version,
    recordedAt: r.recordedAt,
  };
}

/** Each source's latest live report of one category, the most recent source first. */
function latestBySource(entry: CategoryState): CasualtyReport[] {
  const rows: CasualtyReport[] = [];
  for (const s of Object.values(entry.sources)) {
    const top = s.recent[s.recent.length - 1];
    if (top) rows.push(top);
  }
  return rows.sort((a, b) => b.version - a.version);
}

function assessmentsOf(state: IncidentState, eventId: string): AssessmentSummary[] {
  return state.assessments
    .filter((a) => a.targetEventId === eventId)
    .map((a) => ({
      eventId: a.eventId,
      verdict: a.verdict,
      attributedTo: a.attributedTo,
      ...(a.reasoning ? { reasoning: a.reasoning } : {}),
      version: a.version,
    }));
}

/** The public view of an incident, as the contract describes it. */
export function summarize(state: IncidentState): Summary {
  const casualties: Record<string, CasualtySummary> = {};
  for (const [category, entry] of Object.entries(state.casualties)) {
    const rows = latestBySource(entry);
    const { low, high } = combineBounds(rows.map((r) => r.figure));
    casualties[category] = {
      low,
      high,
      latest: rows[0] ? sourced(rows[0]) : null,
      bySource: rows.map(sourced),
      reports: entry.total,
    };
  }
  const denials = state.denials.map((d) => {
    const assessments = assessmentsOf(state, d.eventId);
    const last = assessments[assessments.length - 1];
    return { ...d, assessments, status: (last ? last.verdict : "unassessed") as DenialStatus };
  });
  const o = state.opened;
  return {
    incidentId: state.incidentId,
    version: state.version,
    title: o?.title ?? null,
    kind: o?.kind ?? null,
    location: o?.location ?? null,
    occurredAt: o?.occurredAt ?? null,
    occurredOn: o?.occurredOn ?? null,
    description: o?.description ?? null,
    firstRecordedAt: state.firstRecordedAt,
    lastRecordedAt: state.lastRecordedAt,
    casualties,
    statements: {
      count: state.statements.live,
      latest: state.statements.recent
        .slice(-LATEST_STATEMENTS)
        .reverse()
        .map((s) => ({ ...s, assessments: assessmentsOf(state, s.eventId) })),
    },
    denials,
    contested: denials.length > 0,
    retractedEventIds: state.retractedEventIds,
    headHash: state.headHash,
  };
}
