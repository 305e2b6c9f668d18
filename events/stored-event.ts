import { hash } from "node:crypto";
import canonicalize from "canonicalize";
import type { Attribution, Envelope, EventType, ImportedFrom, Source } from "./schemas.js";
import { SCHEMA_VERSIONS } from "./upcast.js";

/** An event as the archive stores and returns it: the client's envelope plus what the server adds. */
export interface StoredEvent {
  eventId: string;
  incidentId: string;
  version: number;
  type: EventType;
  occurredAt?: string;
  source: Source;
  attributedTo?: Attribution;
  /** The SHA-256s of the incident's evidence this report rests on (EvidenceCaptured events). */
  evidence?: string[];
  /** The version of its type's data schema it was written in; absent: version 1 (events/upcast.ts). */
  schemaVersion?: number;
  /** Set by `npm run import` on an event re-recorded from another archive's export. */
  importedFrom?: ImportedFrom;
  // biome-ignore lint/suspicious/noExplicitAny: the shape depends on `type`; the schemas checked it at the door.
  data: any;
  recordedAt: string;
  recordedBy: string;
  prevHash: string;
  hash: string;
}

export const GENESIS_HASH = "0".repeat(64);

/** One-shot: every event hashed (at sealing, in a verify) would otherwise make a Hash object. */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
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
  const evidence = "evidence" in envelope ? envelope.evidence : undefined;
  const importedFrom = envelope.importedFrom;
  return sha256Hex(
    canonicalJson({ incidentId, type, occurredAt, source, attributedTo, evidence, data, importedFrom }),
  );
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
      ...("evidence" in envelope && envelope.evidence !== undefined ? { evidence: envelope.evidence } : {}),
      data: envelope.data,
      schemaVersion: SCHEMA_VERSIONS[envelope.type],
      ...(envelope.importedFrom === undefined ? {} : { importedFrom: envelope.importedFrom }),
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
 * A passing check against a version the archive itself recorded the incident at (its projected
 * summary's): a chain that ends before it lost its last events, however well what is left
 * links, and is not intact.
 */
export function reachesRecorded(check: ChainCheck, recorded: number | null | undefined): ChainCheck {
  if (!check.ok || recorded === null || recorded === undefined || recorded <= check.version) return check;
  return {
    ok: false,
    firstBadVersion: check.version + 1,
    reason: `the stored chain ends at version ${check.version}, but the archive recorded version ${recorded} of this incident: events after ${check.version} are missing`,
    version: check.version,
  };
}

/**
 * Re-checks a chain from version 1 as an outside reader would: versions gapless, each
 * `prevHash` the previous `hash`, each `hash` recomputed from the event's own fields.
 */
/** A point the chain is known to have reached: its version and that version's hash. */
export interface ChainStart {
  version: number;
  hash: string;
}

export function verifyChain(
  events: Iterable<StoredEvent>,
  /** Where the events continue a chain already checked (default: its start). */
  from: ChainStart = { version: 0, hash: GENESIS_HASH },
): ChainCheck {
  const chain = new ChainVerifier(from);
  for (const event of events) if (!chain.push(event)) break;
  return chain.result();
}

/**
 * The same check, one event at a time, keeping nothing but the last hash: a reader can stream
 * an incident of any length through it in bounded memory.
 */
export class ChainVerifier {
  private prev: string;
  private version: number;
  private broken: ChainCheck | null = null;
  /** How many events were looked at (the one that broke the chain included). */
  checked = 0;

  constructor(from: ChainStart = { version: 0, hash: GENESIS_HASH }) {
    this.prev = from.hash;
    this.version = from.version;
  }

  /** Checks the next event; false once the chain is broken (later events are not looked at). */
  push(event: StoredEvent): boolean {
    if (this.broken) return false;
    this.checked += 1;
    this.broken = this.check(event);
    if (this.broken) return false;
    this.prev = event.hash;
    this.version = event.version;
    return true;
  }

  /** Records a break found outside the events (an unreadable item), unless one came earlier. */
  breakAt(firstBadVersion: number, reason: string): void {
    this.broken ??= { ok: false, firstBadVersion, reason, version: this.version };
  }

  get ok(): boolean {
    return this.broken === null;
  }

  result(): ChainCheck {
    return this.broken ?? { ok: true, version: this.version, headHash: this.prev };
  }

  private check(event: StoredEvent): ChainCheck | null {
    const version = this.version;
    const expectedVersion = version + 1;
    if (event.version !== expectedVersion) {
      return {
        ok: false,
        firstBadVersion: expectedVersion,
        reason: `version ${expectedVersion} is missing; found ${event.version}`,
        version,
      };
    }
    if (event.prevHash !== this.prev) {
      return {
        ok: false,
        firstBadVersion: event.version,
        reason: "prevHash does not match the hash of the previous event",
        expected: this.prev,
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
    return null;
  }
}
