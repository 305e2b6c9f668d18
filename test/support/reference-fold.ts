// The fold as it was before projections were bounded (kept whole, every live row in memory):
// a reference the bounded fold must agree with, byte for byte, on every summary.
import { combineBounds } from "../../events/figures.js";
import { ownValue, setOwn } from "../../events/own-keys.js";
import type { Attribution, EventType, Figure, Location } from "../../events/schemas.js";
import { GENESIS_HASH, type StoredEvent } from "../../events/stored-event.js";

/**
 * Summaries quote long texts up to this many characters, ending in "…"; the event itself,
 * in full, is one GET …/events away. It keeps a view within DynamoDB's 400 KB item.
 */
const SUMMARY_TEXT_LIMIT = 1000;

function clip(text: string): string {
  if (text.length <= SUMMARY_TEXT_LIMIT) return text;
  // Counted and cut by code points, so an emoji or other astral character is never halved.
  const points = Array.from(text);
  if (points.length <= SUMMARY_TEXT_LIMIT) return text;
  return `${points.slice(0, SUMMARY_TEXT_LIMIT - 1).join("")}…`;
}

/** How many statements the summary quotes in full; `count` still counts them all. */
const LATEST_STATEMENTS = 10;

interface Ref {
  eventId: string;
  version: number;
  recordedAt: string;
  attributedTo: Attribution;
}

interface CasualtyReport extends Ref {
  figure: Figure;
  publisher: string;
}
interface StatementRow extends Ref {
  quote: string;
  stance: string;
  accuses?: string;
  channel?: string;
}
interface DenialRow extends Ref {
  claim: string;
  counterClaim?: string;
  quote?: string;
}
interface AssessmentRow extends Ref {
  targetEventId: string;
  verdict: "supported" | "disputed" | "false" | "unverified";
  reasoning?: string;
}

/**
 * Everything the fold needs to stay correct under retractions: the live (not retracted) rows,
 * not only the current figures, so that retracting a source's latest report brings its
 * previous one back.
 */
interface IncidentState {
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
  /** Every capture (EvidenceCaptured), in version order. */
  captures: {
    eventId: string;
    sha256: string;
    kind: string;
    title?: string;
    access: "public" | "restricted";
  }[];
}

function emptyState(incidentId: string): IncidentState {
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
    captures: [],
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
 * Applies one event to a state the fold owns. Mutating a private draft keeps a fold of N
 * events O(N); `evolve` and `fold` below are the pure faces of it and never touch their input.
 */
function apply(draft: IncidentState, event: StoredEvent): void {
  if (event.version <= draft.version) return;
  if (event.version !== draft.version + 1) {
    throw new RangeError(
      `cannot fold version ${event.version} onto version ${draft.version} of ${draft.incidentId}`,
    );
  }
  draft.version = event.version;
  draft.headHash = event.hash;
  draft.firstRecordedAt ??= event.recordedAt;
  draft.lastRecordedAt = event.recordedAt;
  setOwn(draft.types, event.eventId, event.type);
  const d = event.data;
  if (event.type === "EvidenceCaptured") {
    draft.captures.push({
      eventId: event.eventId,
      sha256: d.sha256,
      kind: d.kind,
      ...(d.title ? { title: d.title } : {}),
      access: d.access ?? "public",
    });
  }
  switch (event.type) {
    case "IncidentOpened":
      draft.opened = {
        eventId: event.eventId,
        title: d.title,
        kind: d.kind,
        location: d.location,
        occurredAt: d.occurredAt ?? event.occurredAt ?? null,
        occurredOn: d.occurredOn ?? null,
        description: d.description ?? null,
      };
      break;
    case "CasualtiesReported":
      for (const [category, figure] of Object.entries(d.figures as Record<string, Figure>)) {
        const entry = ownValue(draft.casualties, category) ?? { reports: [], total: 0 };
        setOwn(draft.casualties, category, entry);
        entry.reports.push({ ...ref(event), figure, publisher: event.source.publisher });
        entry.total += 1;
      }
      break;
    case "StatementMade":
      draft.statements.push({
        ...ref(event),
        quote: clip(d.quote),
        stance: d.stance,
        ...(d.accuses ? { accuses: d.accuses } : {}),
        ...(d.channel ? { channel: d.channel } : {}),
      });
      break;
    case "DenialIssued":
      draft.denials.push({
        ...ref(event),
        claim: d.claim,
        ...(d.counterClaim ? { counterClaim: d.counterClaim } : {}),
        ...(d.quote ? { quote: clip(d.quote) } : {}),
      });
      break;
    case "ClaimAssessed":
      draft.assessments.push({
        ...ref(event),
        targetEventId: d.targetEventId,
        verdict: d.verdict,
        ...(d.reasoning ? { reasoning: clip(d.reasoning) } : {}),
      });
      break;
    case "ReportRetracted": {
      const target: string = d.targetEventId;
      if (!draft.retractedEventIds.includes(target)) draft.retractedEventIds.push(target);
      for (const entry of Object.values(draft.casualties)) entry.reports = without(entry.reports, target);
      draft.statements = without(draft.statements, target);
      draft.denials = without(draft.denials, target);
      draft.assessments = without(draft.assessments, target);
      break;
    }
  }
}

/**
 * Folds stored events, in version order, onto `from` (which is left as it was). Idempotent on
 * versions: an event at or below the state's version is skipped, so replays and duplicated
 * deliveries change nothing; a gap throws, since a view must never skip an event.
 */
export function referenceFold(
  incidentId: string,
  events: Iterable<StoredEvent>,
  from?: IncidentState,
): IncidentState {
  const draft = from ? structuredClone(from) : emptyState(incidentId);
  for (const event of events) apply(draft, event);
  return draft;
}

interface SourcedFigure {
  figure: Figure;
  attributedTo: Attribution;
  publisher: string;
  eventId: string;
  version: number;
  recordedAt: string;
}

interface CasualtySummary {
  low: number | null;
  high: number | null;
  latest: SourcedFigure | null;
  bySource: SourcedFigure[];
  reports: number;
}

interface AssessmentSummary {
  eventId: string;
  verdict: AssessmentRow["verdict"];
  attributedTo: Attribution;
  reasoning?: string;
  version: number;
}

type DenialStatus = "unassessed" | AssessmentRow["verdict"];

interface Summary {
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
  evidence: { count: number; latest: IncidentState["captures"] };
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
function latestBySource(reports: readonly CasualtyReport[]): CasualtyReport[] {
  const bySource = new Map<string, CasualtyReport>();
  for (const r of reports) {
    const prev = bySource.get(r.attributedTo.name);
    if (!prev || r.version > prev.version) bySource.set(r.attributedTo.name, r);
  }
  return [...bySource.values()].sort((a, b) => b.version - a.version);
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
export function referenceSummarize(state: IncidentState): Summary {
  const casualties: Record<string, CasualtySummary> = {};
  for (const [category, { reports, total }] of Object.entries(state.casualties)) {
    const rows = latestBySource(reports);
    const { low, high } = combineBounds(rows.map((r) => r.figure));
    casualties[category] = {
      low,
      high,
      latest: rows[0] ? sourced(rows[0]) : null,
      bySource: rows.map(sourced),
      reports: total,
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
      count: state.statements.length,
      latest: state.statements
        .slice(-LATEST_STATEMENTS)
        .reverse()
        .map((s) => ({ ...s, assessments: assessmentsOf(state, s.eventId) })),
    },
    denials,
    contested: denials.length > 0,
    retractedEventIds: state.retractedEventIds,
    // Every capture counted; the newest 100, newest first.
    evidence: { count: state.captures.length, latest: state.captures.slice(-100).reverse() },
    headHash: state.headHash,
  };
}
