import {
  type Attribution,
  type Grade,
  type Location,
  REVISABLE_FIELDS,
  type RevisableField,
} from "./schemas.js";
import { sourceKey } from "./source-key.js";
import type { StoredEvent } from "./stored-event.js";

/**
 * The archive's own judgements on an incident (CONTRACT.md "Coding for research"): revisions of
 * its details, grades, attributions and links. Each kind is superseded, never retracted: a later
 * revision, grade, assessment of the same perpetrator or link to the same incident replaces the
 * earlier one. So the fold keeps only the current rows, bounded, and never reads back.
 */

/** An incident's details: what IncidentOpened gave, as revised since. */
export interface Details {
  title: string;
  kind: string;
  location: Location;
  occurredAt: string | null;
  occurredOn: string | null;
  /** Absent in states stored before precision was recorded: read as null. */
  occurredUntil?: string | null;
  timePrecision?: string | null;
  description: string | null;
}

interface Made {
  eventId: string;
  version: number;
  recordedAt: string;
  attributedTo: Attribution;
}

/** One value a field took, from `version` on. */
export interface FieldChange extends Made {
  value: unknown;
}

export interface GradeRow extends Made {
  grade: Grade;
  reasoning?: string;
}

export interface AttributionRow extends Made {
  perpetrator: { name: string; side?: string; actorId?: string };
  certainty: "low" | "medium" | "high";
  reasoning?: string;
}

export interface LinkRow extends Made {
  otherIncidentId: string;
  relation: "duplicate-of" | "same-event" | "part-of" | "related";
}

/** Changes kept per revised field, the newest (the page shows them; `changes` counts all). */
export const FIELD_HISTORY_KEPT = 20;
/** Perpetrators kept, the most recently assessed; `count` counts every assessment. */
export const ATTRIBUTIONS_KEPT = 100;
/** Incidents this one links to, the most recently linked; `linkCount` counts every incident linked. */
export const LINKS_KEPT = 100;
/** Reasoning is quoted in the summary up to this many characters (the event holds it whole). */
const REASONING_LIMIT = 1000;

export interface EditorialState {
  /** The last IncidentRevised, if any. */
  revisedIn: { version: number; eventId: string; recordedAt: string } | null;
  revisions: number;
  /** Per revised field: the value it opened with, then each change, newest last (bounded). */
  history: Partial<Record<RevisableField, { changes: number; recent: FieldChange[] }>>;
  grade: GradeRow | null;
  grades: number;
  attributions: AttributionRow[];
  attributionCount: number;
  links: LinkRow[];
  linkCount: number;
}

export function emptyEditorial(): EditorialState {
  return {
    revisedIn: null,
    revisions: 0,
    history: {},
    grade: null,
    grades: 0,
    attributions: [],
    attributionCount: 0,
    links: [],
    linkCount: 0,
  };
}

/** Details as IncidentOpened gives them (the envelope's time when the data has none: version 1). */
export function detailsOf(event: StoredEvent): Details {
  const d = event.data;
  return {
    title: d.title,
    kind: d.kind,
    location: d.location,
    // The envelope's time stands in only where the opening gives neither a time nor a day: a
    // report given on the 9th of an incident on the 8th is not an incident on the 9th.
    occurredAt: d.occurredAt ?? (d.occurredOn === undefined ? event.occurredAt : undefined) ?? null,
    occurredOn: d.occurredOn ?? null,
    occurredUntil: d.occurredUntil ?? null,
    timePrecision: d.timePrecision ?? null,
    description: d.description ?? null,
  };
}

function made(event: StoredEvent): Made {
  return {
    eventId: event.eventId,
    version: event.version,
    recordedAt: event.recordedAt,
    attributedTo: event.attributedTo ?? { name: event.source.publisher },
  };
}

const clip = (text: string) =>
  Array.from(text).length <= REASONING_LIMIT
    ? text
    : `${Array.from(text)
        .slice(0, REASONING_LIMIT - 1)
        .join("")}…`;

/** What a revision changes: each field given, and the start it clears (occurredAt ↔ occurredOn). */
export type ChangedDetails = Partial<Record<RevisableField, unknown>>;

// The fields are the schema's (a strict object): no client-chosen key reaches these records.
function changesOf(data: Record<string, unknown>): ChangedDetails {
  const out: ChangedDetails = {};
  for (const field of REVISABLE_FIELDS) if (data[field] !== undefined) out[field] = data[field];
  if (data.occurredAt !== undefined && data.occurredOn === undefined) out.occurredOn = null;
  if (data.occurredOn !== undefined && data.occurredAt === undefined) out.occurredAt = null;
  return out;
}

/** Applies an IncidentRevised to the details, recording each field's change. */
export function foldRevision(ed: EditorialState, details: Details, opened: Made, event: StoredEvent): void {
  ed.revisions += 1;
  ed.revisedIn = { version: event.version, eventId: event.eventId, recordedAt: event.recordedAt };
  for (const [field, value] of Object.entries(changesOf(event.data)) as [RevisableField, unknown][]) {
    const before = (details as unknown as Record<string, unknown>)[field] ?? null;
    let kept = ed.history[field];
    if (!kept) {
      // The first change of a field keeps the value it had, so its history reads from the start.
      kept = { changes: 0, recent: [{ ...opened, value: before }] };
      ed.history[field] = kept;
    }
    kept.changes += 1;
    kept.recent.push({ ...made(event), value });
    if (kept.recent.length > FIELD_HISTORY_KEPT)
      kept.recent.splice(0, kept.recent.length - FIELD_HISTORY_KEPT);
    (details as unknown as Record<string, unknown>)[field] = value;
  }
}

export function foldGrade(ed: EditorialState, event: StoredEvent): void {
  ed.grades += 1;
  const d = event.data;
  ed.grade = { ...made(event), grade: d.grade, ...(d.reasoning ? { reasoning: clip(d.reasoning) } : {}) };
}

/** The key two assessments of one perpetrator share: its actor id if given, else its name as a source key. */
export const perpetratorKey = (p: { name: string; actorId?: string }): string =>
  p.actorId !== undefined ? `actor:${p.actorId}` : sourceKey({ name: p.name });

export function foldAttribution(ed: EditorialState, event: StoredEvent): void {
  ed.attributionCount += 1;
  const d = event.data;
  const key = perpetratorKey(d.perpetrator);
  ed.attributions = ed.attributions.filter((a) => perpetratorKey(a.perpetrator) !== key);
  ed.attributions.push({
    ...made(event),
    perpetrator: d.perpetrator,
    certainty: d.certainty,
    ...(d.reasoning ? { reasoning: clip(d.reasoning) } : {}),
  });
  if (ed.attributions.length > ATTRIBUTIONS_KEPT) ed.attributions.shift();
}

/** The live link of this incident to `other`, if it keeps one. */
export const linkTo = (ed: EditorialState | undefined, other: string): LinkRow | undefined =>
  ed?.links.find((l) => l.otherIncidentId === other);

/** A link replaces an earlier one to the same incident; the same link again changes nothing. */
export function foldLink(ed: EditorialState, event: StoredEvent): void {
  const d = event.data;
  const current = linkTo(ed, d.otherIncidentId);
  if (current && current.relation === d.relation) return;
  if (!current) ed.linkCount += 1;
  ed.links = ed.links.filter((l) => l.otherIncidentId !== d.otherIncidentId);
  ed.links.push({ ...made(event), otherIncidentId: d.otherIncidentId, relation: d.relation });
  if (ed.links.length > LINKS_KEPT) ed.links.shift();
}

/**
 * The current rows a fold set as it went, one per other incident and one per perpetrator: what
 * the indexes that keep them all are given (functions/links), since the state keeps only the
 * latest LINKS_KEPT and ATTRIBUTIONS_KEPT and a long fold may pass more than those.
 */
export class EditorialRows {
  private readonly linkRows = new Map<string, LinkRow>();
  private readonly attributionRows = new Map<string, AttributionRow>();

  /** After `event` was folded into `ed`: the row it set, if it was a link or an attribution. */
  note(ed: EditorialState | undefined, event: StoredEvent): void {
    if (!ed) return;
    if (event.type === "IncidentsLinked") {
      const row = linkTo(ed, event.data.otherIncidentId);
      if (row) this.linkRows.set(row.otherIncidentId, { ...row });
    } else if (event.type === "AttributionAssessed") {
      const row = ed.attributions[ed.attributions.length - 1];
      if (row?.version === event.version)
        this.attributionRows.set(perpetratorKey(row.perpetrator), { ...row });
    }
  }

  get links(): LinkRow[] {
    return [...this.linkRows.values()];
  }

  get attributions(): AttributionRow[] {
    return [...this.attributionRows.values()];
  }
}

/**
 * The newer row of each key among the state's kept rows and those an index holds (written by
 * another projection, so either may be behind the other).
 */
function newestByKey<T extends { version: number }>(
  kept: readonly T[],
  indexed: readonly T[],
  key: (row: T) => string,
): T[] {
  const current = new Map<string, T>();
  for (const row of [...indexed, ...kept]) {
    const seen = current.get(key(row));
    if (!seen || seen.version < row.version) current.set(key(row), row);
  }
  return [...current.values()];
}

/** Each perpetrator's current assessment, the most recent first. */
export function allAttributions(
  kept: readonly AttributionRow[],
  indexed: readonly AttributionRow[],
): AttributionRow[] {
  return newestByKey(kept, indexed, (a) => perpetratorKey(a.perpetrator)).sort(
    (a, b) => b.version - a.version,
  );
}

/** This incident's current link to each other incident. */
export function ownLinks(kept: readonly LinkRow[], indexed: readonly LinkRow[]): LinkRow[] {
  return newestByKey(kept, indexed, (l) => l.otherIncidentId);
}
