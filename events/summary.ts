import type { Attribution, EventType, Figure, Location } from "./schemas.js";
import { GENESIS_HASH, type StoredEvent } from "./stored-event.js";

/** How many statements the summary quotes in full; `count` still counts them all. */
export const LATEST_STATEMENTS = 10;

interface Ref {
  eventId: string;
  version: number;
  recordedAt: string;
  attributedTo: Attribution;
}

export interface CasualtyReport extends Ref {
  figure: Figure;
  publisher: string;
}
export interface StatementRow extends Ref {
  quote: string;
  stance: string;
  accuses?: string;
  channel?: string;
}
export interface DenialRow extends Ref {
  claim: string;
  counterClaim?: string;
  quote?: string;
}
export interface AssessmentRow extends Ref {
  targetEventId: string;
  verdict: "supported" | "disputed" | "false" | "unverified";
  reasoning?: string;
}

/**
 * Everything the fold needs to stay correct under retractions: the live (not retracted) rows,
 * not only the current figures, so that retracting a source's latest report brings its
 * previous one back.
 */
export interface IncidentState {
  incidentId: string;
  version: number;
  headHash: string;
  firstRecordedAt: string | null;
  lastRecordedAt: string | null;
  opened: {
    eventId: string;
    title: string;
    kind: string;
    location: Location;
    occurredAt: string | null;
    occurredOn: string | null;
    description: string | null;
  } | null;
  /** Every event of the incident by id: what a `targetEventId` may name. */
  types: Record<string, EventType>;
  casualties: Record<string, { reports: CasualtyReport[]; total: number }>;
  statements: StatementRow[];
  denials: DenialRow[];
  assessments: AssessmentRow[];
  retractedEventIds: string[];
}

export function emptyState(incidentId: string): IncidentState {
  return {
    incidentId,
    version: 0,
    headHash: GENESIS_HASH,
    firstRecordedAt: null,
    lastRecordedAt: null,
    opened: null,
    types: {},
    casualties: {},
    statements: [],
    denials: [],
    assessments: [],
    retractedEventIds: [],
  };
}

function ref(event: StoredEvent): Ref {
  return {
    eventId: event.eventId,
    version: event.version,
    recordedAt: event.recordedAt,
    attributedTo: event.attributedTo ?? { name: event.source.publisher },
  };
}

const without = <T extends { eventId: string }>(rows: T[], eventId: string) =>
  rows.filter((r) => r.eventId !== eventId);

/**
 * Folds one stored event into the state. Pure, and idempotent on versions: an event at or
 * below the state's version is ignored, so replays and duplicated deliveries change nothing.
 */
export function evolve(state: IncidentState, event: StoredEvent): IncidentState {
  if (event.version <= state.version) return state;
  if (event.version !== state.version + 1) {
    throw new RangeError(
      `cannot fold version ${event.version} onto version ${state.version} of ${state.incidentId}`,
    );
  }
  const next: IncidentState = {
    ...state,
    version: event.version,
    headHash: event.hash,
    firstRecordedAt: state.firstRecordedAt ?? event.recordedAt,
    lastRecordedAt: event.recordedAt,
    types: { ...state.types, [event.eventId]: event.type },
  };
  const d = event.data;
  switch (event.type) {
    case "IncidentOpened":
      next.opened = {
        eventId: event.eventId,
        title: d.title,
        kind: d.kind,
        location: d.location,
        occurredAt: d.occurredAt ?? event.occurredAt ?? null,
        occurredOn: d.occurredOn ?? null,
        description: d.description ?? null,
      };
      break;
    case "CasualtiesReported": {
      const casualties = { ...state.casualties };
      for (const [category, figure] of Object.entries(d.figures as Record<string, Figure>)) {
        const prev = casualties[category] ?? { reports: [], total: 0 };
        casualties[category] = {
          reports: [...prev.reports, { ...ref(event), figure, publisher: event.source.publisher }],
          total: prev.total + 1,
        };
      }
      next.casualties = casualties;
      break;
    }
    case "StatementMade":
      next.statements = [
        ...state.statements,
        {
          ...ref(event),
          quote: d.quote,
          stance: d.stance,
          ...(d.accuses ? { accuses: d.accuses } : {}),
          ...(d.channel ? { channel: d.channel } : {}),
        },
      ];
      break;
    case "DenialIssued":
      next.denials = [
        ...state.denials,
        {
          ...ref(event),
          claim: d.claim,
          ...(d.counterClaim ? { counterClaim: d.counterClaim } : {}),
          ...(d.quote ? { quote: d.quote } : {}),
        },
      ];
      break;
    case "ClaimAssessed":
      next.assessments = [
        ...state.assessments,
        {
          ...ref(event),
          targetEventId: d.targetEventId,
          verdict: d.verdict,
          ...(d.reasoning ? { reasoning: d.reasoning } : {}),
        },
      ];
      break;
    case "ReportRetracted": {
      const target: string = d.targetEventId;
      if (!state.retractedEventIds.includes(target))
        next.retractedEventIds = [...state.retractedEventIds, target];
      next.casualties = Object.fromEntries(
        Object.entries(state.casualties).map(([c, v]) => [c, { ...v, reports: without(v.reports, target) }]),
      );
      next.statements = without(state.statements, target);
      next.denials = without(state.denials, target);
      next.assessments = without(state.assessments, target);
      break;
    }
  }
  return next;
}

export function fold(
  incidentId: string,
  events: Iterable<StoredEvent>,
  from = emptyState(incidentId),
): IncidentState {
  let state = from;
  for (const event of events) state = evolve(state, event);
  return state;
}
