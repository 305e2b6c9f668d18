import { combineBounds } from "./figures.js";
import type { Attribution, Figure, Location } from "./schemas.js";
import { piecesNeeded, type SpillLog, type SpillPiece, type SpillRows } from "./spill.js";
import {
  type AssessmentRow,
  type CasualtyReport,
  type CategoryState,
  type IncidentState,
  LATEST_STATEMENTS,
  type StatementRow,
} from "./summary.js";
import { summarizeVictims, type VictimsSummary } from "./victims.js";

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
  victims: VictimsSummary;
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

function assessmentsOf(assessments: readonly AssessmentRow[], eventId: string): AssessmentSummary[] {
  return assessments
    .filter((a) => a.targetEventId === eventId)
    .map((a) => ({
      eventId: a.eventId,
      verdict: a.verdict,
      attributedTo: a.attributedTo,
      ...(a.reasoning ? { reasoning: a.reasoning } : {}),
      version: a.version,
    }));
}

/**
 * The three spilled lists whole: the sealed pieces' rows (oldest) then the inline tail, less
 * what was retracted after its row was sealed.
 */
function spilledLists(state: IncidentState, stored: readonly SpillPiece[]) {
  const held = [...(state.unsaved ?? []), ...stored];
  const missing = piecesNeeded(state.spilled, held);
  if (missing.length > 0)
    throw new RangeError(
      `the summary of ${state.incidentId} needs ${missing.length} stored pieces (${missing[0]?.log} ${missing[0]?.index}, …)`,
    );
  const sealed = <L extends SpillLog>(log: L): SpillRows[L] => {
    const rows: unknown[] = [];
    for (let index = 0; index < (state.spilled?.pieces[log] ?? 0); index++)
      rows.push(
        ...((held.find((p) => p.log === log && p.index === index) as SpillPiece<L>).rows as unknown[]),
      );
    return rows as SpillRows[L];
  };
  if (!state.spilled)
    return {
      denials: state.denials,
      assessments: state.denialAssessments,
      retracted: state.retractedEventIds,
    };
  const retracted = [...sealed("retracted"), ...state.retractedEventIds];
  const gone = new Set(retracted);
  return {
    denials: [...sealed("denials").filter((d) => !gone.has(d.eventId)), ...state.denials],
    assessments: [...sealed("assessments"), ...state.denialAssessments].filter((a) => !gone.has(a.eventId)),
    retracted,
  };
}

/**
 * The public view of an incident, as the contract describes it. A state whose lists spilled
 * into stored pieces (events/spill.ts) needs them given: `piecesNeeded` says which.
 */
export function summarize(state: IncidentState, pieces: readonly SpillPiece[] = []): Summary {
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
  const lists = spilledLists(state, pieces);
  const denials = lists.denials.map((d) => {
    const assessments = assessmentsOf(lists.assessments, d.eventId);
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
        .map((s) => ({ ...s, assessments: assessmentsOf(state.assessments, s.eventId) })),
    },
    denials,
    contested: denials.length > 0,
    retractedEventIds: lists.retracted,
    victims: summarizeVictims(state.victims),
    headHash: state.headHash,
  };
}
