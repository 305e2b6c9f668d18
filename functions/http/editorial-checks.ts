import { fieldPath } from "../../events/append-rules.js";
import { EDITOR_TYPES, type Envelope, type EventType, endsBeforeStart } from "../../events/schemas.js";
import type { Summary } from "../../events/summarize.js";
import type { FieldError } from "../../events/validate.js";
import { ValidationError } from "../errors.js";

export interface EditorialCheckDeps {
  /** The incident's current version (0: no such incident). */
  headVersion(incidentId: string): Promise<number>;
  /** The incident's current summary, links included (null: none yet). */
  summary(incidentId: string): Promise<Summary | null>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The first editors' type an append body names (one event, or each of `{ events: [...] }`, read
 * as parseAppendBody reads them), or undefined. Read from the parsed JSON before the events are
 * validated: the role a request needs follows from what it asks to do, so a writer learns of the
 * missing role (403), not of how an editor's event would be wrong (422).
 */
export function editorTypeIn(body: unknown): EventType | undefined {
  if (!isObject(body)) return undefined;
  const named = "events" in body ? (Array.isArray(body.events) ? body.events : []) : [body];
  for (const event of named) {
    const type = isObject(event) ? event.type : undefined;
    if (typeof type === "string" && (EDITOR_TYPES as readonly string[]).includes(type))
      return type as EventType;
  }
  return undefined;
}

/**
 * What an editorial judgement must hold against the archive beyond its own shape: a link names
 * another incident that exists and is not linked so already; a revised date range does not end
 * before it starts, with the incident's current details filling what the revision leaves out.
 * Checked before the append; a breach stores nothing (422 naming the field). Two identical links
 * racing each other may both be stored: the fold keeps one (events/editorial.ts).
 */
export async function checkEditorial(
  incidentId: string,
  envelopes: readonly Envelope[],
  batched: boolean,
  deps: EditorialCheckDeps,
): Promise<void> {
  if (!envelopes.some((e) => e.type === "IncidentsLinked" || e.type === "IncidentRevised")) return;
  const current = await deps.summary(incidentId);
  const linked = new Map(
    (current?.links?.items ?? [])
      .filter((l) => l.direction === "outgoing")
      .map((l) => [l.incidentId, l.relation as string]),
  );
  let when = {
    start: current?.occurredAt ?? current?.occurredOn ?? undefined,
    until: current?.occurredUntil ?? undefined,
  };
  const errors: FieldError[] = [];
  for (const [i, e] of envelopes.entries()) {
    const path = (field: string) => fieldPath(batched, i, field);
    if (e.type === "IncidentOpened") {
      when = { start: e.data.occurredAt ?? e.data.occurredOn ?? e.occurredAt, until: e.data.occurredUntil };
    }
    if (e.type === "IncidentRevised") {
      const d = e.data;
      const next = {
        start: d.occurredAt ?? d.occurredOn ?? when.start,
        until: d.occurredUntil ?? when.until,
      };
      if (d.occurredUntil !== undefined && next.start === undefined) {
        errors.push({
          path: path("data.occurredUntil"),
          message: "the incident has no start to end after: give occurredAt or occurredOn too",
        });
      } else if (endsBeforeStart(next.start, next.until)) {
        const field =
          d.occurredUntil !== undefined
            ? "data.occurredUntil"
            : d.occurredAt
              ? "data.occurredAt"
              : "data.occurredOn";
        errors.push({
          path: path(field),
          message: `the incident would end (${next.until}) before it starts (${next.start})`,
        });
      } else when = next;
    }
    if (e.type === "IncidentsLinked") {
      const { otherIncidentId: other, relation } = e.data;
      if (other === incidentId) {
        errors.push({
          path: path("data.otherIncidentId"),
          message: "must name another incident, not this one",
        });
      } else if (linked.get(other) === relation) {
        errors.push({
          path: path("data.otherIncidentId"),
          message: `is already linked from this incident as ${relation}; the same link is stored once`,
        });
      } else if ((await deps.headVersion(other)) === 0) {
        errors.push({
          path: path("data.otherIncidentId"),
          message: `${other} is not an incident of this archive`,
        });
      } else linked.set(other, relation);
    }
  }
  if (errors.length > 0) {
    throw new ValidationError(
      `${errors
        .map((e) => `${e.path} ${e.message}`)
        .slice(0, 3)
        .join("; ")}; nothing was stored`,
      errors,
    );
  }
}
