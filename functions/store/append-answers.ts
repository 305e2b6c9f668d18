import type { RuleBreach } from "../../events/append-rules.js";
import type { Envelope } from "../../events/schemas.js";
import { parseServerEventId } from "../../events/server-ids.js";
import { contentFingerprint, type StoredEvent } from "../../events/stored-event.js";
import {
  EventIdConflictError,
  IncidentExistsError,
  IncidentMissingError,
  ValidationError,
} from "../errors.js";
import type { Claim } from "./claims.js";
import { type Commit, sliceHolding } from "./commit-item.js";

/** What an append's answer says; `created: false` is a replay of an earlier append (200). */
export interface AppendResult {
  created: boolean;
  incidentId: string;
  version: number;
  events: { eventId: string; version: number; hash: string }[];
}

/** What is known of one client eventId of an append. */
export type IdOutcome =
  | { kind: "held" }
  | { kind: "stale" }
  | { kind: "stored"; same: boolean; event: StoredEvent; commit: Commit }
  | { kind: "reserved"; claim: Claim }
  /** An id of the archive's own form that does not name this event here. */
  | { kind: "foreign"; madeElsewhere: boolean };

export type Stored = Extract<IdOutcome, { kind: "stored" }>;

export function storedOutcome(
  incidentId: string,
  event: StoredEvent,
  commit: Commit,
  fingerprints: ReadonlyMap<string, string>,
): Stored {
  const same =
    event.incidentId === incidentId &&
    contentFingerprint(incidentId, event) === fingerprints.get(event.eventId);
  return { kind: "stored", same, event, commit };
}

export function pathOf(envelopes: readonly Envelope[], eventId: string): string {
  const i = envelopes.findIndex((e) => e.eventId === eventId);
  return envelopes.length === 1 ? "eventId" : `events[${i}].eventId`;
}

/** Why an id cannot be used for this append, or null when it can (or is a faithful repeat). */
export function conflictMessage(id: string, incidentId: string, o: IdOutcome): string | null {
  switch (o.kind) {
    case "reserved":
      return `${id} is reserved by an unfinished append to incident ${o.claim.incidentId}; retry that append or use another eventId`;
    case "foreign":
      return o.madeElsewhere
        ? `${id} has the form of the ids this archive makes (ev_…) for another incident's events; choose another eventId`
        : `${id} has the form of the ids this archive makes (ev_…) but names no event of this incident; choose another eventId`;
    case "stored":
      if (o.same) return null;
      return o.event.incidentId === incidentId
        ? `${id} is already stored (version ${o.event.version}) with different content`
        : `${id} is already used on incident ${o.event.incidentId}`;
    default:
      return null;
  }
}

export function throwConflicts(
  incidentId: string,
  envelopes: readonly Envelope[],
  ids: readonly string[],
  outcomes: readonly IdOutcome[],
): void {
  const conflicts = ids.flatMap((id, i) => {
    const message = conflictMessage(id, incidentId, outcomes[i] as IdOutcome);
    return message ? [{ path: pathOf(envelopes, id), message }] : [];
  });
  if (conflicts.length > 0) {
    throw new EventIdConflictError(conflicts.map((c) => c.message).join("; "), conflicts);
  }
}

/** A replay's answer, and the commits it was read from. */
export interface Replay {
  result: AppendResult;
  commits: Commit[];
}

/**
 * The first answer again, when this append was stored before: every event carries a client id
 * stored with this content, or — a batch mixing ids and no ids — the ids all sit in one append's
 * slice of one commit (the whole commit unless it holds several appends), and that slice matches the
 * request one for one, in position and content. Anything else is not a replay: the events
 * without an id could not be told apart from new ones.
 */

export function replayOf(
  incidentId: string,
  envelopes: readonly Envelope[],
  ids: readonly string[],
  outcomes: readonly IdOutcome[],
): Replay | null {
  if (ids.length === 0 || !outcomes.every((o) => o.kind === "stored" && o.same)) return null;
  const stored = outcomes as Stored[];
  const commits = [...new Map(stored.map((s) => [s.commit.version, s.commit])).values()];
  if (ids.length === envelopes.length) {
    const byId = new Map(stored.map((s) => [s.event.eventId, s.event]));
    const events = envelopes.map((e) => byId.get(e.eventId as string) as StoredEvent);
    return { result: replayAnswer(incidentId, events, commits), commits };
  }
  const commit = commits.length === 1 ? (commits[0] as Commit) : null;
  if (!commit) return null;
  // In a commit of several appends the request is one slice, not the whole item: its ids must all
  // sit in that one slice, and the slice must match the request in position and content.
  const slice = sliceHolding(commit, (stored[0] as Stored).event.version);
  const inSlice = new Set(slice.map((e) => e.version));
  if (!stored.every((s) => inSlice.has(s.event.version)) || !sameBatch(incidentId, envelopes, slice)) {
    return null;
  }
  return { result: replayAnswer(incidentId, slice, commits), commits };
}

function sameBatch(
  incidentId: string,
  envelopes: readonly Envelope[],
  slice: readonly StoredEvent[],
): boolean {
  return (
    slice.length === envelopes.length &&
    envelopes.every((envelope, i) => {
      const event = slice[i] as StoredEvent;
      const idMatches =
        envelope.eventId === undefined
          ? parseServerEventId(event.eventId) !== null
          : envelope.eventId === event.eventId;
      return idMatches && contentFingerprint(incidentId, envelope) === contentFingerprint(incidentId, event);
    })
  );
}

function replayAnswer(
  incidentId: string,
  events: readonly StoredEvent[],
  commits: readonly Commit[],
): AppendResult {
  return {
    created: false,
    incidentId,
    version: Math.max(...commits.map((c) => c.lastVersion)),
    events: events.map(({ eventId, version, hash }) => ({ eventId, version, hash })),
  };
}

/**
 * Some ids of the batch are stored, but not as this very batch: nothing is stored now. The
 * advice must not invite a duplicate — an event without an id cannot be recognised as stored.
 */
export function partlyStoredError(
  envelopes: readonly Envelope[],
  ids: readonly string[],
  outcomes: readonly IdOutcome[],
): EventIdConflictError {
  return new EventIdConflictError(
    "part of this batch is already stored, not as this same batch; a batch is stored whole or not at all, so nothing was stored. Read GET /incidents/{incidentId}/events before posting any of these events again: one without an eventId cannot be recognised as stored, and posting it again would store it twice",
    ids.flatMap((id, i) =>
      outcomes[i]?.kind === "stored"
        ? [{ path: pathOf(envelopes, id), message: `${id} is already stored` }]
        : [],
    ),
  );
}

export function breachError(breach: RuleBreach): Error {
  switch (breach.kind) {
    case "incident-exists":
      return new IncidentExistsError(breach.detail);
    case "incident-missing":
      return new IncidentMissingError(breach.detail);
    case "bad-target":
    case "too-many-categories":
    case "future-dates":
      return new ValidationError(breach.detail, breach.errors);
  }
}
