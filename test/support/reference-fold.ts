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
    occurredUntil: string | null;
    timePrecision: string | null;
    description: string | null;
  } | null;
  revisedInVersion: number | null;
  revisions: number;
  grade: {
    eventId: string;
    version: number;
    recordedAt: string;
    attributedTo: Attribution;
    grade: string;
    reasoning?: string;
  } | null;
  grades: number;
  /** Every editorial event of these kinds, in version order (the summary keeps the latest per key). */
  attributions: StoredEvent[];
  links: StoredEvent[];
  /** Every event of the incident by id: what a `targetEventId` may name. */
  types: Record<string, EventType>;
  casualties: Record<string, { reports: CasualtyReport[]; total: number }>;
  statements: StatementRow[];
  denials: DenialRow[];
  assessments: AssessmentRow[];
  retractedEventIds: string[];
}

function emptyState(incidentId: string): IncidentState {
  return {
    incidentId,
    version: 0,
    headHash: GENESIS_HASH,
    firstRecordedAt: null,
    lastRecordedAt: null,
    opened: null,
    revisedInVersion: null,
    revisions: 0,
    grade: null,
    grades: 0,
    attributions: [],
    links: [],
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
  switch (event.type) {
    case "IncidentOpened":
      draft.opened = {
        eventId: event.eventId,
        title: d.title,
        kind: d.kind,
        location: d.location,
        occurredAt: d.occurredAt ?? event.occurredAt ?? null,
        occurredOn: d.occurredOn ?? null,
        occurredUntil: d.occurredUntil ?? null,
        timePrecision: d.timePrecision ?? null,
        description: d.description ?? null,
      };
      break;
    case "IncidentRevised":
      if (draft.opened) {
        const o = draft.opened as Record<string, unknown>;
        for (const field of [
          "title",
          "kind",
          "location",
          "occurredAt",
          "occurredOn",
          "occurredUntil",
          "timePrecision",
          "description",
        ])
          if (d[field] !== undefined) o[field] = d[field];
        if (d.occurredAt !== undefined && d.occurredOn === undefined) o.occurredOn = null;
        if (d.occurredOn !== undefined && d.occurredAt === undefined) o.occurredAt = null;
      }
      draft.revisedInVersion = event.version;
      draft.revisions += 1;
      break;
    case "IncidentGraded":
      draft.grade = {
        ...ref(event),
        grade: d.grade,
        ...(d.reasoning ? { reasoning: clip(d.reasoning) } : {}),
      };
      draft.grades += 1;
      break;
    case "AttributionAssessed":
      draft.attributions.push(event);
      break;
    case "IncidentsLinked":
      draft.links.push(event);
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
  best: number | null;
  acled: number | null;
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
  occurredUntil: string | null;
  timePrecision: string | null;
  description: string | null;
  revisedInVersion: number | null;
  revisions: number;
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
  grade: { given: IncidentState["grade"]; suggested: string; count: number };
  attributions: { count: number; latest: unknown[] };
  links: { count: number; items: unknown[] };
  headHash: string;
}

/** The codebook's "Best estimates", said once more, independently: one number per figure. */
function pointOf(figure: Figure, acled: boolean): number {
  if ("min" in figure) return figure.min;
  if (!("value" in figure)) return figure.qualifier === "dozens" ? (acled ? 12 : 24) : acled ? 100 : 200;
  return figure.qualifier === "at-most" ? 0 : figure.value;
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
  const eligible: CasualtyReport[] = [];
  for (const [category, { reports, total }] of Object.entries(state.casualties)) {
    const rows = latestBySource(reports);
    const { low, high } = combineBounds(rows.map((r) => r.figure));
    const counted = rows.filter((r) => {
      const verdicts = state.assessments.filter((a) => a.targetEventId === r.eventId);
      return verdicts[verdicts.length - 1]?.verdict !== "false";
    });
    eligible.push(...counted);
    const best = counted.map((r) => pointOf(r.figure, false)).sort((a, b) => a - b);
    const acled = counted.map((r) => pointOf(r.figure, true));
    casualties[category] = {
      low,
      high,
      best: best.length > 0 ? (best[Math.floor((best.length - 1) / 2)] as number) : null,
      acled: acled.length > 0 ? Math.min(...acled) : null,
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
  const contested = denials.length > 0;
  const corroborated = eligible.some((a) =>
    eligible.some((b) => a.attributedTo.name !== b.attributedTo.name && a.publisher !== b.publisher),
  );
  const latestBy = (events: StoredEvent[], key: (e: StoredEvent) => string) => {
    const byKey = new Map<string, StoredEvent>();
    for (const e of events) {
      byKey.delete(key(e));
      byKey.set(key(e), e);
    }
    return [...byKey.values()].reverse();
  };
  return {
    incidentId: state.incidentId,
    version: state.version,
    title: o?.title ?? null,
    kind: o?.kind ?? null,
    location: o?.location ?? null,
    occurredAt: o?.occurredAt ?? null,
    occurredOn: o?.occurredOn ?? null,
    occurredUntil: o?.occurredUntil ?? null,
    timePrecision: o?.timePrecision ?? null,
    description: o?.description ?? null,
    revisedInVersion: state.revisedInVersion,
    revisions: state.revisions,
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
    contested,
    retractedEventIds: state.retractedEventIds,
    grade: {
      given: state.grade,
      suggested: contested ? "contested" : corroborated ? "corroborated" : "single-source",
      count: state.grades,
    },
    attributions: {
      count: state.attributions.length,
      latest: latestBy(state.attributions, (e) => e.data.perpetrator.name).map((e) => ({
        ...ref(e),
        perpetrator: e.data.perpetrator,
        certainty: e.data.certainty,
        ...(e.data.reasoning ? { reasoning: clip(e.data.reasoning) } : {}),
      })),
    },
    links: {
      count: new Set(state.links.map((e) => e.data.otherIncidentId)).size,
      items: latestBy(state.links, (e) => e.data.otherIncidentId).map((e) => ({
        incidentId: e.data.otherIncidentId,
        relation: e.data.relation,
        direction: "outgoing",
        eventId: e.eventId,
        version: e.version,
        recordedAt: e.recordedAt,
        attributedTo: ref(e).attributedTo,
      })),
    },
    headHash: state.headHash,
  };
}
