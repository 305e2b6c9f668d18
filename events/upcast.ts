import type { EventType } from "./schemas.js";
import type { StoredEvent } from "./stored-event.js";

/**
 * Stored events never change, so the fold reads every shape the archive ever wrote. Each event
 * type's data schema has a version; a stored event names the version it was written in
 * (`schemaVersion`), and one written before versions were recorded is version 1. Upcasters bring
 * an older shape to the current one, one version at a time, before the fold sees it — so the
 * fold only ever knows the current shapes (docs/reference/codebook.md, "Schema versions").
 */
export const SCHEMA_VERSIONS: Readonly<Record<EventType, number>> = {
  // 2: `timePrecision`, `occurredUntil`, `location.precision`.
  IncidentOpened: 2,
  CasualtiesReported: 1,
  StatementMade: 1,
  DenialIssued: 1,
  ClaimAssessed: 1,
  ReportRetracted: 1,
  IncidentRevised: 1,
  IncidentGraded: 1,
  AttributionAssessed: 1,
  IncidentsLinked: 1,
  VictimsRecorded: 1,
  VictimsLinked: 1,
  RedactionApplied: 1,
  EvidenceCaptured: 1,
};

type Upcaster = (event: StoredEvent) => StoredEvent;

/**
 * `UPCASTERS[type][n]` brings version n to n + 1. Version 1 of IncidentOpened took the envelope's
 * `occurredAt` as the incident's time when its data gave none; version 2 keeps the incident's
 * time in its data, so the step moves it there. Nothing else of version 1 changes: it claimed no
 * precision, so none is invented.
 */
const UPCASTERS: Partial<Record<EventType, Record<number, Upcaster>>> = {
  IncidentOpened: {
    1: (event) => {
      const d = event.data;
      if (d.occurredAt !== undefined || d.occurredOn !== undefined || event.occurredAt === undefined)
        return event;
      return { ...event, data: { ...d, occurredAt: event.occurredAt } };
    },
  },
};

/** The version a stored event was written in. */
export function schemaVersionOf(event: Pick<StoredEvent, "schemaVersion">): number {
  return event.schemaVersion ?? 1;
}

/** The event in the current shape of its type (the same object when it already is). */
export function upcast(event: StoredEvent): StoredEvent {
  const current = SCHEMA_VERSIONS[event.type] ?? 1;
  let out = event;
  for (let v = schemaVersionOf(event); v < current; v++) {
    const step = UPCASTERS[event.type]?.[v];
    if (step) out = step(out);
  }
  return out;
}
