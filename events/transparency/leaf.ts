import { canonicalJson } from "../stored-event.js";
import { MalformedLeafError } from "./errors.js";
import { type Hash, hashLeaf } from "./merkle.js";

/** What one log leaf commits to: an event's place in its incident and its chain hash. */
export interface LeafFields {
  incidentId: string;
  version: number;
  eventId: string;
  hash: string;
}

/** The leaf: UTF-8 of the RFC 8785 canonical JSON of exactly these four fields. */
export function leafText(fields: LeafFields): Uint8Array {
  const { incidentId, version, eventId, hash } = fields;
  return Buffer.from(canonicalJson({ incidentId, version, eventId, hash }), "utf8");
}

export function leafHashOf(fields: LeafFields): Hash {
  return hashLeaf(leafText(fields));
}

/**
 * Reads a leaf back, refusing any bytes that are not exactly the canonical form of the four
 * fields: two different byte strings must never name the same event.
 */
export function parseLeaf(bytes: Uint8Array): LeafFields {
  let value: unknown;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw new MalformedLeafError("leaf is not UTF-8 JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new MalformedLeafError("leaf is not a JSON object");
  }
  const v = value as Record<string, unknown>;
  const keys = Object.keys(v).sort();
  if (keys.join(",") !== "eventId,hash,incidentId,version") {
    throw new MalformedLeafError("leaf must hold exactly incidentId, version, eventId and hash");
  }
  if (typeof v.incidentId !== "string" || typeof v.eventId !== "string" || typeof v.hash !== "string") {
    throw new MalformedLeafError("leaf fields have the wrong types");
  }
  if (typeof v.version !== "number" || !Number.isSafeInteger(v.version) || v.version < 1) {
    throw new MalformedLeafError("leaf version must be a positive integer");
  }
  const fields: LeafFields = {
    incidentId: v.incidentId,
    version: v.version,
    eventId: v.eventId,
    hash: v.hash,
  };
  if (canonicalJson(fields) !== text) throw new MalformedLeafError("leaf is not in canonical form");
  return fields;
}
