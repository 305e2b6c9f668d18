import {
  type Details,
  detailsOf,
  type EditorialState,
  emptyEditorial,
  foldAttribution,
  foldGrade,
  foldLink,
  foldRevision,
} from "./editorial.js";
import { addCapture, citeEvidence, type EvidenceRow } from "./evidence.js";
import { combineBounds } from "./figures.js";
import { ownValue, setOwn } from "./own-keys.js";
import type { Attribution, Figure } from "./schemas.js";
import { sourceKey } from "./source-key.js";
import {
  emptySpilled,
  filterAdd,
  filterMayHold,
  type Spilled,
  type SpillLog,
  type SpillPiece,
  sealOldest,
} from "./spill.js";
import { GENESIS_HASH, type StoredEvent } from "./stored-event.js";
import { upcast } from "./upcast.js";
import { countVictims, emptyVictims, linkVictims, unlinkVictims, type VictimsState } from "./victims.js";

/**
 * Summaries quote long texts up to this many characters, ending in "…"; the event itself,
 * in full, is one GET …/events away. It keeps a view within DynamoDB's 400 KB item.
 */
export const SUMMARY_TEXT_LIMIT = 1000;

function clip(text: string): string {
  if (text.length <= SUMMARY_TEXT_LIMIT) return text;
  // Counted and cut by code points, so an emoji or other astral character is never halved.
  const points = Array.from(text);
  if (points.length <= SUMMARY_TEXT_LIMIT) return text;
  return `${points.slice(0, SUMMARY_TEXT_LIMIT - 1).join("")}…`;
}

/** How many statements the summary quotes in full; `count` still counts them all. */
export const LATEST_STATEMENTS = 10;

/**
 * The fold state is bounded: it keeps what the summary shows plus a little slack, and reads
 * the rare rest back from the event store when a retraction needs it (see `Need`).
 * Per (category, source): this many of its latest live reports. Only the newest one counts in
 * the summary; the others spare a read when that one is retracted.
 */
export const REPORTS_KEPT = 3;
/** Statements kept beyond the ten quoted, so that a retraction of one rarely needs a read. */
export const STATEMENTS_KEPT = 2 * LATEST_STATEMENTS;
/** Chart points kept per (category, source): the reports that moved the range, and the latest. */
export const CHART_MARKS_KEPT = 6;
/** Steps of a category's low–high range kept for the chart, the newest ones. */
export const BAND_STEPS_KEPT = 60;

interface Ref {
  eventId: string;
  version: number;
  recordedAt: string;
  attributedTo: Attribution;
}

export interface CasualtyReport extends Ref {
  figure: Figure;
  publisher: string;
  /**
   * Live assessments of this report, the newest last (at most VERDICTS_KEPT), and how many live
   * ones there are: its latest verdict decides whether it counts in the best estimates.
   */
  verdicts?: Verdict[];
  assessed?: number;
}
/** A live assessment of a casualty report; `by` is its assessor's source key (absent in states folded before it was kept). */
export interface Verdict {
  eventId: string;
  verdict: AssessmentRow["verdict"];
  by?: string;
}
/** Assessments kept per report: only the latest counts; the others spare a read on a retraction. */
export const VERDICTS_KEPT = 3;
/** `publisher`: who published it; optional, since a stored view's rows may lack it (rebuilt views have it). */
export interface StatementRow extends Ref {
  quote: string;
  stance: string;
  accuses?: string;
  channel?: string;
  publisher?: string;
}
export interface DenialRow extends Ref {
  claim: string;
  counterClaim?: string;
  quote?: string;
  publisher?: string;
}
export interface AssessmentRow extends Ref {
  targetEventId: string;
  verdict: "supported" | "disputed" | "false" | "unverified";
  reasoning?: string;
}

/** A point of a casualty chart: a report that moved the category's range, or a source's latest. */
export interface ChartMark {
  eventId: string;
  version: number;
  recordedAt: string;
  publisher: string;
  figure: Figure;
  /** Whether folding it changed the category's low–high. */
  moved: boolean;
}

/** The summary's low–high range of a category as it stood from `version` on. */
export interface BandStep {
  version: number;
  low: number | null;
  high: number | null;
}

export interface SourceReports {
  /** Live (not retracted) reports of this category by this source, over the whole incident. */
  live: number;
  /** The newest of them, oldest first; at most REPORTS_KEPT. */
  recent: CasualtyReport[];
  marks: ChartMark[];
}

export interface CategoryState {
  /** Reports of the category ever recorded, retracted ones included. */
  total: number;
  /** By `sourceKey(attributedTo)`, in the order sources first reported the category. */
  sources: Record<string, SourceReports>;
  band: BandStep[];
}

/**
 * What a projection keeps of an incident: bounded by the number of sources and categories,
 * never by the number of reports or statements. The lists the summary shows in full (denials,
 * their assessments, retracted ids) keep only their newest rows here; older ones are sealed
 * into stored pieces (events/spill.ts).
 */
export interface IncidentState {
  incidentId: string;
  version: number;
  headHash: string;
  firstRecordedAt: string | null;
  lastRecordedAt: string | null;
  opened: ({ eventId: string } & Details) | null;
  /** Revisions, grades, attributions and links (events/editorial.ts); absent in states stored before them. */
  editorial?: EditorialState;
  casualties: Record<string, CategoryState>;
  statements: { live: number; recent: StatementRow[] };
  /** The newest live denials, in version order; older ones are in sealed pieces. */
  denials: DenialRow[];
  /** The newest assessments of denials, in version order (retracted ones dropped while inline). */
  denialAssessments: AssessmentRow[];
  /** Live assessments of a kept statement, in version order. */
  assessments: AssessmentRow[];
  /** The newest retracted ids, in the order retracted; older ones are in sealed pieces. */
  retractedEventIds: string[];
  /** What was sealed into pieces; null until anything was. */
  spilled: Spilled | null;
  /** Victims' counts and same-person links (events/victims.ts); absent on states folded before. */
  victims?: VictimsState;
  /**
   * Pieces sealed by this fold and not yet stored: whoever saves the state writes them first
   * (ViewStore), and a stored state never carries them.
   */
  unsaved?: SpillPiece[];
  /** Captures (EvidenceCaptured): how many, and the newest (events/evidence.ts). */
  evidence?: { count: number; latest: EvidenceRow[] };
}

/**
 * What a fold step may ask of the incident's history, answered by whoever drives the fold: the
 * event store in the projector, the event list itself in a fold over a whole history.
 * - `event`: the stored event with this id (null if it is not one of this incident);
 * - `before`: some events just before `version`, newest first (empty below version 1).
 */
export type Need =
  | { need: "event"; eventId: string }
  | { need: "before"; version: number }
  | { need: "piece"; log: SpillLog; index: number };
export type Answer = StoredEvent | StoredEvent[] | SpillPiece | null;
export type FoldStep = Generator<Need, void, Answer>;

export function emptyState(incidentId: string): IncidentState {
  return {
    incidentId,
    version: 0,
    headHash: GENESIS_HASH,
    firstRecordedAt: null,
    lastRecordedAt: null,
    opened: null,
    casualties: {},
    statements: { live: 0, recent: [] },
    denials: [],
    denialAssessments: [],
    assessments: [],
    retractedEventIds: [],
    spilled: null,
    editorial: emptyEditorial(),
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

/**
 * The key a report's source is counted by (events/source-key.ts): a private person by their
 * pseudonym `ref` (their name is sealed); the name as sent is kept in the rows.
 */
const sourceOf = (event: StoredEvent) => sourceKey(event.attributedTo ?? { name: event.source.publisher });

/** A ClaimAssessed of a casualty report, as the report's row keeps it. */
function verdictOf(assessment: StoredEvent): Verdict {
  return { eventId: assessment.eventId, verdict: assessment.data.verdict, by: sourceOf(assessment) };
}

function reportRow(event: StoredEvent, figure: Figure): CasualtyReport {
  return { ...ref(event), figure, publisher: event.source.publisher };
}

export function statementRow(event: StoredEvent): StatementRow {
  const d = event.data;
  return {
    ...ref(event),
    quote: clip(d.quote),
    stance: d.stance,
    ...(d.accuses ? { accuses: d.accuses } : {}),
    ...(d.channel ? { channel: d.channel } : {}),
    publisher: event.source.publisher,
  };
}

function assessmentRow(event: StoredEvent): AssessmentRow {
  const d = event.data;
  return {
    ...ref(event),
    targetEventId: d.targetEventId,
    verdict: d.verdict,
    ...(d.reasoning ? { reasoning: clip(d.reasoning) } : {}),
  };
}

/** The category's range over each source's latest live report: what the summary shows. */
export function categoryRange(entry: CategoryState): { low: number | null; high: number | null } {
  const figures: Figure[] = [];
  for (const s of Object.values(entry.sources)) {
    const top = s.recent[s.recent.length - 1];
    if (top) figures.push(top.figure);
  }
  return combineBounds(figures);
}

function noteRange(entry: CategoryState, version: number): boolean {
  const now = categoryRange(entry);
  const last = entry.band[entry.band.length - 1];
  if (last && last.low === now.low && last.high === now.high) return false;
  entry.band.push({ version, ...now });
  if (entry.band.length > BAND_STEPS_KEPT) entry.band.shift();
  return true;
}

/** Where each log's inline tail lives in the state. */
const TAILS = {
  denials: "denials",
  assessments: "denialAssessments",
  retracted: "retractedEventIds",
} as const;

/** Seals the oldest rows of a log's inline tail into its next piece, once the tail is over budget. */
function seal(draft: IncidentState, log: SpillLog): void {
  const rows = sealOldest<unknown>(draft[TAILS[log]]);
  if (!rows) return;
  draft.spilled ??= emptySpilled();
  const spilled = draft.spilled;
  const index = spilled.pieces[log]++;
  draft.unsaved ??= [];
  draft.unsaved.push({ log, index, rows } as SpillPiece);
  if (log === "denials") spilled.liveDenials += rows.length;
  if (log === "retracted") filterAdd(spilled, rows as string[]);
}

/** A sealed piece: from this fold's own unsaved ones, else read from the store. */
function* piece<L extends SpillLog>(
  draft: IncidentState,
  log: L,
  index: number,
): Generator<Need, SpillPiece<L>, Answer> {
  const held = draft.unsaved?.find((p) => p.log === log && p.index === index);
  const found = held ?? ((yield { need: "piece", log, index }) as SpillPiece | null);
  if (!found) throw new RangeError(`the fold needs piece ${index} of the ${log} of ${draft.incidentId}`);
  return found as SpillPiece<L>;
}

/** Every retracted id in sealed pieces: only the rare walk back after a retraction reads them all. */
function* sealedRetracted(draft: IncidentState): Generator<Need, string[], Answer> {
  const ids: string[] = [];
  for (let i = 0; i < (draft.spilled?.pieces.retracted ?? 0); i++)
    ids.push(...(yield* piece(draft, "retracted", i)).rows);
  return ids;
}

/** Whether `target` was retracted before: the inline ids, else the filter, else (rarely) the pieces. */
function* retractedBefore(draft: IncidentState, target: string): Generator<Need, boolean, Answer> {
  if (draft.retractedEventIds.includes(target)) return true;
  const spilled = draft.spilled;
  if (!spilled || spilled.pieces.retracted === 0 || !filterMayHold(spilled, target)) return false;
  return (yield* sealedRetracted(draft)).includes(target);
}

function keepLast<T>(rows: T[], max: number): void {
  if (rows.length > max) rows.splice(0, rows.length - max);
}

/**
 * Walks the history back from `version` (exclusive), newest first, until `enough` says stop:
 * the one place a fold reads what it no longer keeps.
 */
function* walkBack(version: number, visit: (event: StoredEvent) => boolean): Generator<Need, void, Answer> {
  let cursor = version;
  while (cursor > 1) {
    const page = (yield { need: "before", version: cursor }) as StoredEvent[];
    if (page.length === 0) return;
    for (const event of page) {
      cursor = event.version;
      if (visit(upcast(event))) return;
    }
  }
}

/** A source's latest live reports of a category, read back after its kept ones were retracted. */
function* refillReports(draft: IncidentState, category: string, name: string, kept: SourceReports): FoldStep {
  const retracted = new Set([...(yield* sealedRetracted(draft)), ...draft.retractedEventIds]);
  const want = Math.min(REPORTS_KEPT, kept.live);
  const found: CasualtyReport[] = [];
  // Assessments come after what they assess, so walking back meets them first.
  const verdicts = new Map<string, Verdict[]>();
  yield* walkBack(draft.version, (e) => {
    if (retracted.has(e.eventId)) return false;
    if (e.type === "ClaimAssessed") {
      const list = verdicts.get(e.data.targetEventId) ?? [];
      list.unshift(verdictOf(e));
      verdicts.set(e.data.targetEventId, list);
      return false;
    }
    if (e.type !== "CasualtiesReported" || sourceOf(e) !== name) return false;
    const figure = ownValue(e.data.figures as Record<string, Figure>, category);
    if (figure) {
      const row = reportRow(e, figure);
      const list = verdicts.get(e.eventId);
      if (list) {
        row.assessed = list.length;
        row.verdicts = list.slice(-VERDICTS_KEPT);
      }
      found.unshift(row);
    }
    return found.length >= want;
  });
  kept.recent = found;
}

/** The latest live statements and their live assessments, read back after kept ones were retracted. */
function* refillStatements(draft: IncidentState): FoldStep {
  const retracted = new Set([...(yield* sealedRetracted(draft)), ...draft.retractedEventIds]);
  const want = Math.min(STATEMENTS_KEPT, draft.statements.live);
  const found: StatementRow[] = [];
  const assessments: AssessmentRow[] = [];
  yield* walkBack(draft.version, (e) => {
    if (retracted.has(e.eventId)) return false;
    if (e.type === "ClaimAssessed") assessments.push(assessmentRow(e));
    if (e.type === "StatementMade") found.unshift(statementRow(e));
    return found.length >= want;
  });
  const before = new Set(draft.statements.recent.map((s) => s.eventId));
  const now = new Set(found.map((s) => s.eventId));
  draft.statements.recent = found;
  draft.assessments = [
    ...draft.assessments.filter((a) => !before.has(a.targetEventId) && !now.has(a.targetEventId)),
    ...assessments.filter((a) => now.has(a.targetEventId)),
  ].sort((a, b) => a.version - b.version);
}

function addReport(draft: IncidentState, event: StoredEvent): void {
  const name = sourceOf(event);
  for (const [category, figure] of Object.entries(event.data.figures as Record<string, Figure>)) {
    const entry = ownValue(draft.casualties, category) ?? { total: 0, sources: {}, band: [] };
    setOwn(draft.casualties, category, entry);
    entry.total += 1;
    const kept = ownValue(entry.sources, name) ?? { live: 0, recent: [], marks: [] };
    setOwn(entry.sources, name, kept);
    kept.live += 1;
    kept.recent.push(reportRow(event, figure));
    keepLast(kept.recent, REPORTS_KEPT);
    const moved = noteRange(entry, event.version);
    // The previous latest stays a point only if it moved the range; the new one is the latest.
    const last = kept.marks[kept.marks.length - 1];
    if (last && !last.moved) kept.marks.pop();
    kept.marks.push({
      eventId: event.eventId,
      version: event.version,
      recordedAt: event.recordedAt,
      publisher: event.source.publisher,
      figure,
      moved,
    });
    keepLast(kept.marks, CHART_MARKS_KEPT);
  }
}

function dropAssessmentsOf(draft: IncidentState, eventId: string): void {
  draft.assessments = draft.assessments.filter((a) => a.targetEventId !== eventId);
  draft.denialAssessments = draft.denialAssessments.filter((a) => a.targetEventId !== eventId);
}

/**
 * A mark of the retractions a state holds, which changes exactly when one takes effect (each
 * adds its target, some then seal the oldest into a piece): a retraction of a report retracted
 * before leaves it as it was.
 */
export function retractionsMark(state: IncidentState | undefined): string {
  return `${state?.retractedEventIds.length ?? 0}/${state?.spilled?.pieces.retracted ?? 0}`;
}

function* retract(draft: IncidentState, target: string): FoldStep {
  if (yield* retractedBefore(draft, target)) return;
  draft.retractedEventIds.push(target);
  seal(draft, "retracted");
  for (const row of draft.evidence?.latest ?? []) if (row.eventId === target) row.retracted = true;
  // What the state keeps inline is found without a read. Sealed rows stay as they are: the
  // summary leaves out what the retracted log names.
  const denial = draft.denials.findIndex((d) => d.eventId === target);
  if (denial >= 0) {
    draft.denials.splice(denial, 1);
    dropAssessmentsOf(draft, target);
    return;
  }
  for (const list of [draft.assessments, draft.denialAssessments]) {
    const assessment = list.findIndex((a) => a.eventId === target);
    if (assessment >= 0) {
      list.splice(assessment, 1);
      return;
    }
  }
  if (draft.opened?.eventId === target) return;
  const assessed = verdictRows(draft, target);
  if (assessed.length > 0) {
    for (const row of assessed) yield* dropVerdict(draft, row, target);
    return;
  }
  if (draft.victims && unlinkVictims(draft.victims, target)) return;
  const statement = draft.statements.recent.findIndex((s) => s.eventId === target);
  // Anything else may be a report or an older statement: which, only the event can say.
  const event = statement >= 0 ? null : ((yield { need: "event", eventId: target }) as StoredEvent | null);
  if (statement >= 0 || event?.type === "StatementMade") {
    if (statement >= 0) draft.statements.recent.splice(statement, 1);
    dropAssessmentsOf(draft, target);
    draft.statements.live -= 1;
    const { recent, live } = draft.statements;
    if (recent.length < LATEST_STATEMENTS && live > recent.length) yield* refillStatements(draft);
    return;
  }
  // An assessment of a report, older than the ones its row keeps: one fewer live.
  if (event?.type === "ClaimAssessed") {
    for (const row of keptReports(draft, event.data.targetEventId))
      if (!row.verdicts?.some((v) => v.eventId === target))
        row.assessed = Math.max(0, (row.assessed ?? 1) - 1);
    return;
  }
  // Not inline and not retracted before: a denial in a sealed piece.
  if (event?.type === "DenialIssued" && draft.spilled) {
    draft.spilled.liveDenials -= 1;
    dropAssessmentsOf(draft, target);
    return;
  }
  if (event?.type === "VictimsRecorded") {
    draft.victims ??= emptyVictims();
    countVictims(draft.victims, event, -1);
    return;
  }
  if (event?.type !== "CasualtiesReported") return;
  const name = sourceOf(event);
  for (const category of Object.keys(event.data.figures)) {
    const entry = ownValue(draft.casualties, category);
    const kept = entry && ownValue(entry.sources, name);
    if (!entry || !kept) continue;
    kept.live -= 1;
    kept.recent = kept.recent.filter((r) => r.eventId !== target);
    if (kept.recent.length === 0 && kept.live > 0) yield* refillReports(draft, category, name, kept);
    noteRange(entry, draft.version);
  }
}

/**
 * Applies one event to a state the fold owns, asking (by yielding a `Need`) for what it no
 * longer keeps. Mutating a private draft keeps a fold of N events O(N).
 */
function* apply(draft: IncidentState, stored: StoredEvent): FoldStep {
  if (stored.version <= draft.version) return;
  const event = upcast(stored);
  if (event.version !== draft.version + 1) {
    throw new RangeError(
      `cannot fold version ${event.version} onto version ${draft.version} of ${draft.incidentId}`,
    );
  }
  draft.version = event.version;
  draft.headHash = event.hash;
  draft.firstRecordedAt ??= event.recordedAt;
  draft.lastRecordedAt = event.recordedAt;
  const d = event.data;
  if (event.evidence) draft.evidence = citeEvidence(draft.evidence, event);
  switch (event.type) {
    case "IncidentOpened":
      draft.opened = { eventId: event.eventId, ...detailsOf(event) };
      break;
    case "IncidentRevised":
      if (draft.opened) foldRevision(editorial(draft), draft.opened, openedRef(draft), event);
      break;
    case "IncidentGraded":
      foldGrade(editorial(draft), event);
      break;
    case "AttributionAssessed":
      foldAttribution(editorial(draft), event);
      break;
    case "IncidentsLinked":
      foldLink(editorial(draft), event);
      break;
    case "CasualtiesReported":
      addReport(draft, event);
      break;
    case "StatementMade": {
      draft.statements.live += 1;
      draft.statements.recent.push(statementRow(event));
      const recent = draft.statements.recent;
      if (recent.length > STATEMENTS_KEPT) {
        const gone = recent.splice(0, recent.length - STATEMENTS_KEPT);
        for (const s of gone) dropAssessmentsOf(draft, s.eventId);
      }
      break;
    }
    case "DenialIssued":
      draft.denials.push({
        ...ref(event),
        claim: d.claim,
        ...(d.counterClaim ? { counterClaim: d.counterClaim } : {}),
        ...(d.quote ? { quote: clip(d.quote) } : {}),
        publisher: event.source.publisher,
      });
      seal(draft, "denials");
      break;
    case "ClaimAssessed": {
      // Only an assessment the summary shows is kept: of a denial, or of a kept statement (an
      // older statement brought back by a retraction has its assessments read back with it).
      const target: string = d.targetEventId;
      const report = keptReports(draft, target);
      if (report.length > 0) {
        for (const row of report) addVerdict(row, verdictOf(event));
        break;
      }
      let ofDenial = draft.denials.some((x) => x.eventId === target);
      if (!ofDenial && draft.statements.recent.some((x) => x.eventId === target)) {
        draft.assessments.push(assessmentRow(event));
        break;
      }
      // A denial sealed into a piece: which the target is, only the event can say (one read).
      if (!ofDenial && (draft.spilled?.pieces.denials ?? 0) > 0) {
        const found = (yield { need: "event", eventId: target }) as StoredEvent | null;
        ofDenial = found?.type === "DenialIssued";
      }
      if (ofDenial) {
        draft.denialAssessments.push(assessmentRow(event));
        seal(draft, "assessments");
      }
      break;
    }
    case "ReportRetracted":
      yield* retract(draft, d.targetEventId);
      break;
    case "VictimsRecorded":
      draft.victims ??= emptyVictims();
      countVictims(draft.victims, event, 1);
      break;
    case "VictimsLinked":
      draft.victims ??= emptyVictims();
      // Only live entries merge: one of a retracted list is no longer in `recorded`, and merging
      // it would take a living entry off `distinct`. The append refuses such a link, but a stored
      // history may still hold one (one that raced the retraction of its list, say).
      if ((yield* retractedBefore(draft, d.a.eventId)) || (yield* retractedBefore(draft, d.b.eventId))) break;
      linkVictims(draft.victims, event);
      break;
    case "EvidenceCaptured":
      draft.evidence = addCapture(draft.evidence, event);
      break;
  }
}

/** The editorial part of a state, made on first use (a state stored before it has none). */
function editorial(draft: IncidentState): EditorialState {
  draft.editorial ??= emptyEditorial();
  return draft.editorial;
}

/** Who and when the incident was opened: the first entry of a revised field's history. */
function openedRef(draft: IncidentState) {
  return {
    eventId: draft.opened?.eventId ?? "",
    version: 1,
    recordedAt: draft.firstRecordedAt ?? "",
    attributedTo: { name: "IncidentOpened" },
  };
}

/** Kept report rows of the event `eventId` (one per category it reported). */
function keptReports(draft: IncidentState, eventId: string): CasualtyReport[] {
  const rows: CasualtyReport[] = [];
  for (const entry of Object.values(draft.casualties))
    for (const kept of Object.values(entry.sources))
      for (const r of kept.recent) if (r.eventId === eventId) rows.push(r);
  return rows;
}

function addVerdict(row: CasualtyReport, verdict: Verdict): void {
  row.verdicts ??= [];
  row.verdicts.push(verdict);
  row.assessed = (row.assessed ?? 0) + 1;
  keepLast(row.verdicts, VERDICTS_KEPT);
}

/** Kept report rows holding the assessment `eventId` among their verdicts. */
function verdictRows(draft: IncidentState, eventId: string): CasualtyReport[] {
  const rows: CasualtyReport[] = [];
  for (const entry of Object.values(draft.casualties))
    for (const kept of Object.values(entry.sources))
      for (const r of kept.recent) if (r.verdicts?.some((v) => v.eventId === eventId)) rows.push(r);
  return rows;
}

/** A retracted assessment leaves its report's verdicts; the older ones are read back if none is kept. */
function* dropVerdict(draft: IncidentState, row: CasualtyReport, assessment: string): FoldStep {
  row.verdicts = (row.verdicts ?? []).filter((v) => v.eventId !== assessment);
  row.assessed = Math.max(0, (row.assessed ?? 1) - 1);
  if (row.verdicts.length > 0 || row.assessed === 0) return;
  const retracted = new Set([...(yield* sealedRetracted(draft)), ...draft.retractedEventIds]);
  const found: Verdict[] = [];
  yield* walkBack(draft.version, (e) => {
    if (e.version <= row.version) return true;
    if (e.type === "ClaimAssessed" && e.data.targetEventId === row.eventId && !retracted.has(e.eventId))
      found.unshift(verdictOf(e));
    return found.length >= VERDICTS_KEPT;
  });
  row.verdicts = found;
}

/** The verdict that counts for a report: its latest live assessment's, if any. */
export function latestVerdict(row: CasualtyReport): AssessmentRow["verdict"] | null {
  return row.verdicts?.[row.verdicts.length - 1]?.verdict ?? null;
}

/** The state as it is stored: without the pieces its fold sealed (they are stored as their own items). */
export function withoutUnsaved(state: IncidentState): IncidentState {
  const { unsaved: _pieces, ...stored } = state;
  return stored;
}

/** The step the drivers share: a copy of `from` (or an empty state) to fold onto. */
export function foldStart(incidentId: string, from?: IncidentState): IncidentState {
  return from ? structuredClone(from) : emptyState(incidentId);
}

/** One event's step on a draft from `foldStart`, for a driver that answers its needs. */
export function foldStep(draft: IncidentState, event: StoredEvent): FoldStep {
  return apply(draft, event);
}

/**
 * Folds stored events, in version order, onto `from` (which is left as it was). Idempotent on
 * versions: an event at or below the state's version is skipped, so replays and duplicated
 * deliveries change nothing; a gap throws, since a view must never skip an event. What a step
 * asks of the history is answered from the events given (and from `history`, the events
 * before them, when folding onto a state): a need beyond them throws.
 */
export function fold(
  incidentId: string,
  events: Iterable<StoredEvent>,
  from?: IncidentState,
  history: readonly StoredEvent[] = [],
): IncidentState {
  const draft = foldStart(incidentId, from);
  const seen: StoredEvent[] = [...history];
  const byVersion = (version: number) => seen[version - 1];
  const byId = new Map(seen.map((e) => [e.eventId, e]));
  for (const event of events) {
    if (event.version === seen.length + 1) {
      seen.push(event);
      byId.set(event.eventId, event);
    }
    const step = apply(draft, event);
    for (let r = step.next(); !r.done; ) {
      const need = r.value;
      if (need.need === "event") {
        const found = byId.get(need.eventId);
        if (!found && seen.length < draft.version - 1)
          throw new RangeError(
            `the fold needs event ${need.eventId}, and was not given the history to find it`,
          );
        r = step.next(found ?? null);
        continue;
      }
      if (need.need === "piece")
        throw new RangeError(
          `the fold needs stored piece ${need.index} of the ${need.log}, and was not given it`,
        );
      const page: StoredEvent[] = [];
      for (let v = need.version - 1; v >= 1 && page.length < 50; v--) {
        const e = byVersion(v);
        if (!e || e.version !== v)
          throw new RangeError(`the fold needs version ${v}, which it was not given`);
        page.push(e);
      }
      r = step.next(page);
    }
  }
  return draft;
}

/** Folds one stored event into the state; `history`: the events before it, should the step need them. */
export function evolve(
  state: IncidentState,
  event: StoredEvent,
  history: readonly StoredEvent[] = [],
): IncidentState {
  if (event.version <= state.version) return state;
  return fold(state.incidentId, [event], state, history);
}
