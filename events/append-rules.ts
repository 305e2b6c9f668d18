import { futureDates } from "./future-dates.js";
import { ownValue, setOwn } from "./own-keys.js";
import type { Envelope, EventType } from "./schemas.js";
import type { FieldError } from "./validate.js";

/**
 * The rules an append must keep against what the incident already holds. They are checked
 * before anything is written; a broken rule stores nothing.
 */
export type RuleBreach =
  | { kind: "incident-exists"; detail: string }
  | { kind: "incident-missing"; detail: string }
  | { kind: "bad-target"; detail: string; errors: FieldError[] }
  | { kind: "too-many-categories"; detail: string; errors: FieldError[] }
  | { kind: "future-dates"; detail: string; errors: FieldError[] };

/** Distinct casualty categories an incident may hold: its summary and page stay bounded. */
export const MAX_CATEGORIES = 64;

/** The casualty categories a batch names, in order, each once. */
export function categoriesOf(envelopes: readonly Envelope[]): string[] {
  const found = new Set<string>();
  for (const e of envelopes)
    if (e.type === "CasualtiesReported")
      for (const category of Object.keys(e.data.figures)) found.add(category);
  return [...found];
}

/**
 * An incident holds at most MAX_CATEGORIES distinct categories (a retracted report's category
 * stays: the summary keeps its count of reports). `known`: the incident's categories before
 * this append. The first figure that would add one too many is named.
 */
export function checkCategories(
  known: ReadonlySet<string>,
  envelopes: readonly Envelope[],
  batched: boolean,
): RuleBreach | null {
  const held = new Set(known);
  for (const [i, e] of envelopes.entries()) {
    if (e.type !== "CasualtiesReported") continue;
    for (const category of Object.keys(e.data.figures)) {
      if (held.has(category)) continue;
      if (held.size >= MAX_CATEGORIES) {
        const path = fieldPath(batched, i, `data.figures.${category}`);
        const message = `would be this incident's ${held.size + 1}th casualty category; an incident holds at most ${MAX_CATEGORIES}`;
        return {
          kind: "too-many-categories",
          detail: `${path} ${message}; nothing was stored`,
          errors: [{ path, message }],
        };
      }
      held.add(category);
    }
  }
  return null;
}

/**
 * Event types a retraction may not name, each with why (the 422 says it, and what to do
 * instead): the opening defines the incident; un-retracting is not a thing; the archive's own
 * judgements are superseded by newer ones (events/editorial.ts); a redaction has already
 * withheld or erased its values beside the chain (functions/people), which no record can give
 * back, so retracting it would make the record say what the disclosures do not.
 */
const SUPERSEDED = "an editor supersedes it with a newer one";
const UNRETRACTABLE: Partial<Record<EventType, string>> = {
  IncidentOpened: "",
  ReportRetracted: "",
  IncidentRevised: SUPERSEDED,
  IncidentGraded: SUPERSEDED,
  AttributionAssessed: SUPERSEDED,
  IncidentsLinked: SUPERSEDED,
  RedactionApplied:
    "what it withheld or erased stays so; to withhold or erase more, an editor records a further RedactionApplied",
};

/** Whether a retraction may name an event of this type. */
export const retractable = (type: string): boolean => ownValue(UNRETRACTABLE, type) === undefined;

/** The indefinite article of an event type's name, as it is read aloud ("an IncidentOpened"). */
const article = (name: string) => (/^[AEIOU]/.test(name) ? "an" : "a");

export function fieldPath(batched: boolean, index: number, field: string): string {
  return batched ? `events[${index}].${field}` : field;
}

/** Dates after the append's own time (events/future-dates.ts): refused, naming each. */
export function checkDates(
  envelopes: readonly Envelope[],
  batched: boolean,
  recordedAt: string,
): RuleBreach | null {
  const errors = envelopes.flatMap((e, i) => futureDates(e, recordedAt, fieldPath(batched, i, "")));
  if (errors.length === 0) return null;
  return {
    kind: "future-dates",
    detail: `${errors.map((e) => `${e.path} ${e.message}`).join("; ")}; nothing was stored`,
    errors,
  };
}

/** The event another event names (an assessment's or a retraction's target), if it names one. */
export function targetOf(envelope: Envelope): string | undefined {
  return envelope.type === "ClaimAssessed" || envelope.type === "ReportRetracted"
    ? envelope.data.targetEventId
    : undefined;
}

/** Whether a batch needs the incident's known event ids to be checked. */
export function needsTargets(envelopes: readonly Envelope[]): boolean {
  return envelopes.some((e) => targetOf(e) !== undefined);
}

/**
 * @param currentVersion the incident's version before this append (0: it does not exist)
 * @param knownTypes the incident's event ids with their types, when `needsTargets` said so
 */
export function checkAppend(
  currentVersion: number,
  envelopes: readonly Envelope[],
  batched: boolean,
  knownTypes: Readonly<Record<string, EventType>> = {},
): RuleBreach | null {
  const first = envelopes[0];
  if (currentVersion === 0 && first?.type !== "IncidentOpened") {
    return {
      kind: "incident-missing",
      detail: "this incident does not exist yet: its first event must be IncidentOpened",
    };
  }
  const opening = envelopes.findIndex((e, i) => e.type === "IncidentOpened" && (currentVersion > 0 || i > 0));
  if (opening >= 0) {
    return {
      kind: "incident-exists",
      detail: `IncidentOpened must be version 1 of its incident, and only there; it would be version ${currentVersion + opening + 1}`,
    };
  }
  const types: Record<string, EventType> = { ...knownTypes };
  const errors: FieldError[] = [];
  let unknown = false;
  envelopes.forEach((e, i) => {
    const target = targetOf(e);
    if (target !== undefined) {
      const targetType = ownValue(types, target);
      const path = fieldPath(batched, i, "data.targetEventId");
      if (!targetType) {
        unknown = true;
        errors.push({ path, message: `${target} is not an event of this incident` });
      } else if (e.type === "ReportRetracted") {
        const why = ownValue(UNRETRACTABLE, targetType);
        if (why !== undefined)
          errors.push({
            path,
            message: `${article(targetType)} ${targetType} event cannot be retracted${why ? `: ${why}` : ""}`,
          });
      }
    }
    if (e.eventId) setOwn(types, e.eventId, e.type);
  });
  if (errors.length > 0) {
    return {
      kind: "bad-target",
      detail: unknown
        ? "a targetEventId does not name an event of this incident"
        : "a targetEventId names an event that cannot be retracted",
      errors,
    };
  }
  return null;
}
