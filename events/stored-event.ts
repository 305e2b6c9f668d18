import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { Attribution, Envelope, EventType, Source } from "./schemas.js";

/** An event as the archive stores and returns it: the client's envelope plus what the server adds. */
export interface StoredEvent {
  eventId: string;
  incidentId: string;
  version: number;
  type: EventType;
  occurredAt?: string;
  source: Source;
  attributedTo?: Attribution;
  // biome-ignore lint/suspicious/noExplicitAny: the shape depends on `type`; the schemas checked it at the door.
  data: any;
  recordedAt: string;
  recordedBy: string;
  prevHash: string;
  hash: string;
}

export const GENESIS_HASH = "0".repeat(64);

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** RFC 8785 canonical JSON; the schemas admit only JSON values, so this never returns undefined. */
export function canonicalJson(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new TypeError("value has no JSON form");
  return out;
}

/** The hash covers every field a reader sees except `hash` itself — `prevHash` included. */
export function hashEvent(event: Omit<StoredEvent, "hash"> | StoredEvent): string {
  const { hash: _ignored, ...covered } = event as StoredEvent;
  return sha256Hex(canonicalJson(covered));
}

/**
 * What makes two posts of the same `eventId` "the same content": the client's own fields,
 * canonicalised, without anything the server adds.
 */
export function contentFingerprint(incidentId: string, envelope: Envelope | StoredEvent): string {
  const { type, occurredAt, source, attributedTo, data } = envelope;
  return sha256Hex(canonicalJson({ incidentId, type, occurredAt, source, attributedTo, data }));
}

export interface ChainHead {
  version: number;
  hash: string;
  recordedAt: string | null;
}

export const EMPTY_HEAD: ChainHead = { version: 0, hash: GENESIS_HASH, recordedAt: null };

export interface SealContext {
  incidentId: string;
  recordedBy: string;
  /** The server's clock; the sealed time is never earlier than the previous event's. */
  now: string;
  /** Makes an id for an event posted without one, given the version it will have. */
  newEventId: (version: number) => string;
}

/** Gives each envelope its version, time and place in the chain, after `head`. */
export function sealEvents(head: ChainHead, envelopes: readonly Envelope[], ctx: SealContext): StoredEvent[] {
  const recordedAt = head.recordedAt && head.recordedAt > ctx.now ? head.recordedAt : ctx.now;
  let prevHash = head.hash;
  return envelopes.map((envelope, i) => {
    const version = head.version + i + 1;
    const unsealed: Omit<StoredEvent, "hash"> = {
      eventId: envelope.eventId ?? ctx.newEventId(version),
      incidentId: ctx.incidentId,
      version,
      type: envelope.type,
      ...(envelope.occurredAt === undefined ? {} : { occurredAt: envelope.occurredAt }),
      source: envelope.source,
      ...(envelope.attributedTo === undefined ? {} : { attributedTo: envelope.attributedTo }),
      data: envelope.data,
      recordedAt,
      recordedBy: ctx.recordedBy,
      prevHash,
    };
    const sealed = { ...unsealed, hash: hashEvent(unsealed) };
    prevHash = sealed.hash;
    return sealed;
  });
}

export type ChainCheck =
  | { ok: true; version: number; headHash: string }
  | {
      ok: false;
      firstBadVersion: number;
      reason: string;
      expected?: string;
      found?: string;
      version: number;
    };

/**
 * Re-checks a chain from version 1 as an outside reader would: versions gapless, each
 * `prevHash` the previous `hash`, each `hash` recomputed from the event's own fields.
 */
export function verifyChain(
  events: readonly StoredEvent[],
  /** Where the events continue a chain already checked (default: its start). */
  from: { version: number; hash: string } = { version: 0, hash: GENESIS_HASH },
): ChainCheck {
  let prev = from.hash;
  let version = from.version;
  for (const event of events) {
    const expectedVersion = version + 1;
    if (event.version !== expectedVersion) {
      return {
        ok: false,
        firstBadVersion: expectedVersion,
        reason: `version ${expectedVersion} is missing; found ${event.version}`,
        version,
      };
    }
    if (event.prevHash !== prev) {
      return {
        ok: false,
        firstBadVersion: event.version,
        reason: "prevHash does not match the hash of the previous event",
        expected: prev,
        found: event.prevHash,
        version,
      };
    }
    const recomputed = hashEvent(event);
    if (recomputed !== event.hash) {
      return {
        ok: false,
        firstBadVersion: event.version,
        reason: "hash does not match the event's content",
        expected: recomputed,
        found: event.hash,
        version,
      };
    }
    prev = event.hash;
    version = event.version;
  }
  return { ok: true, version, headHash: prev };
}
