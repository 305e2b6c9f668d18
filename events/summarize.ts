import type { AttributionRow, GradeRow, LinkRow } from "./editorial.js";
import { estimate } from "./estimates.js";
import { evidenceSummary } from "./evidence.js";
import { combineBounds } from "./figures.js";
import { outgoingRow } from "./links.js";
import { setOwn } from "./own-keys.js";
import type { Attribution, Figure, Grade, Location } from "./schemas.js";
import { sourceKey } from "./source-key.js";
import { piecesNeeded, type SpillLog, type SpillPiece, type SpillRows } from "./spill.js";
import {
  type AssessmentRow,
  type CasualtyReport,
  type CategoryState,
  type IncidentState,
  LATEST_STATEMENTS,
  latestVerdict,
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
  /** docs/reference/codebook.md "Best estimates": the lower median of the eligible sources' best values. */
  best: number | null;
  /** docs/reference/codebook.md "Best estimates": the smallest of their ACLED-style values. */
  acled: number | null;
  /**
   * docs/reference/codebook.md "Best estimates": the smallest of their best values, so never
   * above `best` (UCDP GED's `low`). Absent from a view stored before it existed.
   */
  lowest?: number | null;
  latest: SourcedFigure | null;
  /** The most recent sources first, at most SUMMARY_LIST_MAX (the rest: …/casualties/{category}/sources). */
  bySource: SourcedFigure[];
  /** How many live sources there are in all: bySource's length when nothing was left out. */
  sourceCount: number;
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

/** A denial as the summary and …/denials list it, its assessments bounded as the summary's lists. */
export interface DenialSummary {
  eventId: string;
  attributedTo: Attribution;
  claim: string;
  counterClaim?: string;
  quote?: string;
  publisher?: string;
  version: number;
  recordedAt: string;
  /** The newest assessments, oldest first, at most SUMMARY_LIST_MAX. */
  assessments: AssessmentSummary[];
  assessmentCount: number;
  status: DenialStatus;
}

export type StatementSummary = Omit<StatementRow, "recordedAt"> & {
  recordedAt: string;
  assessments: AssessmentSummary[];
  assessmentCount: number;
};

/** A link as either incident's summary shows it: `incidentId` is the other incident. */
export interface LinkSummary {
  incidentId: string;
  relation: LinkRow["relation"];
  /** outgoing: posted on this incident; incoming: posted on the other one, naming this. */
  direction: "outgoing" | "incoming";
  eventId: string;
  version: number;
  recordedAt: string;
  attributedTo: Attribution;
}

export interface Summary {
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
  /** The version of the last IncidentRevised (null: never revised), and how many there were. */
  revisedInVersion: number | null;
  revisions: number;
  firstRecordedAt: string | null;
  lastRecordedAt: string | null;
  casualties: Record<string, CasualtySummary>;
  statements: {
    count: number;
    latest: StatementSummary[];
  };
  /** The newest live denials, oldest first, at most SUMMARY_LIST_MAX (all of them: …/denials). */
  denials: DenialSummary[];
  denialCount: number;
  contested: boolean;
  /** The latest retracted ids, in the order retracted, at most SUMMARY_LIST_MAX (all: …/retractions). */
  retractedEventIds: string[];
  retractedCount: number;
  /** The grade an editor gave (the latest), and the one the ledger suggests from its events. */
  grade: { given: GradeRow | null; suggested: Grade; count: number };
  /** Each perpetrator's latest assessment, the most recent first. */
  attributions: { count: number; latest: AttributionRow[] };
  /** Links posted on this incident and on others naming it, the most recent first. */
  links: { count: number; items: LinkSummary[] };
  victims: VictimsSummary;
  evidence: ReturnType<typeof evidenceSummary>;
  headHash: string;
}

/** Lists in a summary that grow with what writers post show at most this many entries. */
export const SUMMARY_LIST_MAX = 100;
/** A summary's JSON is at most this many bytes (UTF-8), whatever was posted. */
export const SUMMARY_MAX_BYTES = 256 * 1024;

/**
 * docs/reference/codebook.md "Suggested grade": contested while a denial is live, else corroborated when
 * eligible casualty figures come from two sources of different publishers, else single-source.
 */
export function suggestedGrade(contested: boolean, eligible: readonly CasualtyReport[]): Grade {
  if (contested) return "contested";
  for (const a of eligible)
    for (const b of eligible)
      if (
        sourceKey(a.attributedTo) !== sourceKey(b.attributedTo) &&
        sourceKey({ name: a.publisher }) !== sourceKey({ name: b.publisher })
      )
        return "corroborated";
  return "single-source";
}

/** The grade the listing filters on: the one an editor gave, else the one the ledger suggests. */
export const effectiveGrade = (s: Pick<Summary, "grade">): Grade | undefined =>
  // A view stored before grades existed has none (until its next projection): it matches no grade.
  s.grade?.given?.grade ?? s.grade?.suggested;

/** docs/reference/codebook.md "Best estimates", eligible: a source's latest live report not assessed `false`. */
const isEligible = (r: CasualtyReport) => latestVerdict(r) !== "false";

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

/** The lists of an incident whole: what the summary bounds and its sub-resources page. */
export interface IncidentLists {
  /** Per category, each live source's latest report, the most recent first. */
  sources: Map<string, SourcedFigure[]>;
  denials: DenialSummary[];
  retracted: string[];
}

function denialSummaries(lists: ReturnType<typeof spilledLists>, cap: number): DenialSummary[] {
  const byTarget = new Map<string, AssessmentRow[]>();
  for (const a of lists.assessments) {
    const rows = byTarget.get(a.targetEventId) ?? [];
    rows.push(a);
    byTarget.set(a.targetEventId, rows);
  }
  return lists.denials.map((d) => {
    const all = byTarget.get(d.eventId) ?? [];
    const last = all[all.length - 1];
    return {
      ...d,
      assessments: all.slice(Math.max(0, all.length - cap)).map(assessmentSummary),
      assessmentCount: all.length,
      status: (last ? last.verdict : "unassessed") as DenialStatus,
    };
  });
}

function assessmentSummary(a: AssessmentRow): AssessmentSummary {
  return {
    eventId: a.eventId,
    verdict: a.verdict,
    attributedTo: a.attributedTo,
    ...(a.reasoning ? { reasoning: a.reasoning } : {}),
    version: a.version,
  };
}

/**
 * Every list of the state whole (a state whose lists spilled needs its stored pieces given, as
 * for `summarize`): what …/casualties/{category}/sources, …/denials and …/retractions page.
 */
export function incidentLists(state: IncidentState, pieces: readonly SpillPiece[] = []): IncidentLists {
  const sources = new Map<string, SourcedFigure[]>();
  for (const [category, entry] of Object.entries(state.casualties))
    sources.set(category, latestBySource(entry).map(sourced));
  const lists = spilledLists(state, pieces);
  return { sources, denials: denialSummaries(lists, SUMMARY_LIST_MAX), retracted: lists.retracted };
}

/** Every retracted id, in the order retracted: the sealed pieces of the retracted log given. */
export function retractedIds(state: IncidentState, pieces: readonly SpillPiece[] = []): string[] {
  if (!state.spilled) return state.retractedEventIds;
  const held = [...(state.unsaved ?? []), ...pieces];
  const rows: string[] = [];
  for (let index = 0; index < state.spilled.pieces.retracted; index++) {
    const piece = held.find((p) => p.log === "retracted" && p.index === index);
    if (!piece) throw new RangeError(`the retracted ids of ${state.incidentId} need stored piece ${index}`);
    rows.push(...(piece.rows as string[]));
  }
  return [...rows, ...state.retractedEventIds];
}

const last = <T>(rows: readonly T[], n: number): T[] => rows.slice(Math.max(0, rows.length - n));

/** UTF-8 length of a string, without building its bytes. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether `json` is at most `max` bytes in UTF-8: counted only when its length leaves a doubt. */
function fits(json: string, max: number): boolean {
  if (json.length > max) return false;
  if (json.length * 3 <= max) return true;
  return utf8Length(json) <= max;
}

/** The caps a summary's growing lists are cut to, largest first, until it fits SUMMARY_MAX_BYTES. */
const CAPS = [SUMMARY_LIST_MAX, 50, 20, 10, 5, 2, 1, 0];

/**
 * The public view of an incident, as the contract describes it. A state whose lists spilled
 * into stored pieces (events/spill.ts) needs them given: `piecesNeeded` says which. Every list
 * that grows with what writers post shows at most SUMMARY_LIST_MAX entries beside its count;
 * should even that pass SUMMARY_MAX_BYTES (long texts in many rows), the lists are cut
 * shorter together, so the summary always fits a DynamoDB item and a reader's budget.
 */
export function summarize(state: IncidentState, pieces: readonly SpillPiece[] = []): Summary {
  return summaryOf(state, spilledLists(state, pieces));
}

/**
 * The summary from what the state holds inline: a spilled list shows only its latest rows (its
 * sealed pieces left out), and its counts are of those. For what is derived at every projection
 * (the finding index), whose cost must not grow with the incident's length.
 */
export function summarizeInline(state: IncidentState): Summary {
  return summaryOf(state, {
    denials: state.denials,
    assessments: state.denialAssessments,
    retracted: state.retractedEventIds,
  });
}

function summaryOf(state: IncidentState, lists: ReturnType<typeof spilledLists>): Summary {
  const eligible: CasualtyReport[] = [];
  const categories = Object.entries(state.casualties).map(([category, entry]) => {
    const rows = latestBySource(entry);
    const counted = rows.filter(isEligible);
    eligible.push(...counted);
    return {
      category,
      rows,
      total: entry.total,
      range: combineBounds(rows.map((r) => r.figure)),
      estimates: estimate(counted.map((r) => r.figure)),
    };
  });
  const denials = denialSummaries(lists, SUMMARY_LIST_MAX);
  const o = state.opened;
  const ed = state.editorial;
  const liveDenials = denials.length;
  const statements = state.statements.recent.slice(-LATEST_STATEMENTS).reverse();
  const statementAssessments = (eventId: string) =>
    state.assessments.filter((a) => a.targetEventId === eventId);
  const at = (cap: number): Summary => {
    const casualties: Record<string, CasualtySummary> = {};
    for (const { category, rows, total, range, estimates } of categories)
      setOwn(casualties, category, {
        low: range.low,
        high: range.high,
        ...estimates,
        latest: rows[0] ? sourced(rows[0]) : null,
        bySource: rows.slice(0, cap).map(sourced),
        sourceCount: rows.length,
        reports: total,
      });
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
      revisedInVersion: ed?.revisedIn?.version ?? null,
      revisions: ed?.revisions ?? 0,
      firstRecordedAt: state.firstRecordedAt,
      lastRecordedAt: state.lastRecordedAt,
      casualties,
      statements: {
        count: state.statements.live,
        latest: statements.slice(0, Math.min(LATEST_STATEMENTS, Math.max(cap, 1))).map((s) => {
          const all = statementAssessments(s.eventId);
          return { ...s, assessments: last(all, cap).map(assessmentSummary), assessmentCount: all.length };
        }),
      },
      denials: last(denials, cap).map((d) => ({ ...d, assessments: last(d.assessments, cap) })),
      denialCount: liveDenials,
      contested: liveDenials > 0,
      retractedEventIds: last(lists.retracted, cap),
      retractedCount: lists.retracted.length,
      grade: {
        given: ed?.grade ?? null,
        suggested: suggestedGrade(liveDenials > 0, eligible),
        count: ed?.grades ?? 0,
      },
      attributions: {
        count: ed?.attributionCount ?? 0,
        latest: [...(ed?.attributions ?? [])].reverse().slice(0, cap),
      },
      links: {
        count: ed?.linkCount ?? 0,
        items: [...(ed?.links ?? [])].reverse().slice(0, cap).map(outgoingRow),
      },
      victims: summarizeVictims(state.victims),
      evidence: evidenceSummary(state.evidence),
      headHash: state.headHash,
    };
  };
  const full = at(SUMMARY_LIST_MAX);
  const json = JSON.stringify(full);
  if (fits(json, SUMMARY_MAX_BYTES)) return full;
  // Too large: each growing list's rows measured once, and the largest cap that fits taken.
  const growing: unknown[][] = [full.denials, full.retractedEventIds];
  for (const c of Object.values(full.casualties)) growing.push(c.bySource);
  for (const d of full.denials) growing.push(d.assessments);
  for (const st of full.statements.latest) growing.push(st.assessments);
  const sizes = growing.map((rows) => rows.map((row) => utf8Length(JSON.stringify(row)) + 1));
  const bare = utf8Length(JSON.stringify(at(0)));
  // An estimate that never undercounts what a cap adds (a denial's assessments are counted in its row too).
  const cost = (cap: number) =>
    bare + sizes.reduce((sum, rows) => sum + rows.slice(0, cap).reduce((a, b) => a + b, 0), 0);
  const cap = CAPS.find((c) => cost(c) <= SUMMARY_MAX_BYTES) ?? 0;
  return at(cap);
}
