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
  | { kind: "bad-target"; detail: string; errors: FieldError[] };

/** Event types a retraction may not name: the opening defines the incident; un-retracting is not a thing. */
const UNRETRACTABLE: readonly EventType[] = ["IncidentOpened", "ReportRetracted"];
/** The archive's own judgements are superseded by newer ones (events/editorial.ts), never retracted. */
const SUPERSEDED: readonly EventType[] = [
  "IncidentRevised",
  "IncidentGraded",
  "AttributionAssessed",
  "IncidentsLinked",
];

export function fieldPath(batched: boolean, index: number, field: string): string {
  return batched ? `events[${index}].${field}` : field;
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
  envelopes.forEach((e, i) => {
    const target = targetOf(e);
    if (target !== undefined) {
      const targetType = ownValue(types, target);
      const path = fieldPath(batched, i, "data.targetEventId");
      if (!targetType) errors.push({ path, message: `${target} is not an event of this incident` });
      else if (e.type === "ReportRetracted" && UNRETRACTABLE.includes(targetType)) {
        errors.push({ path, message: `a ${targetType} event cannot be retracted` });
      } else if (e.type === "ReportRetracted" && SUPERSEDED.includes(targetType)) {
        errors.push({
          path,
          message: `a ${targetType} event cannot be retracted: an editor supersedes it with a newer one`,
        });
      }
    }
    if (e.eventId) setOwn(types, e.eventId, e.type);
  });
  if (errors.length > 0) {
    return {
      kind: "bad-target",
      detail: "a targetEventId does not name a fitting event of this incident",
      errors,
    };
  }
  return null;
}
