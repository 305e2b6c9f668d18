import { createHash } from "node:crypto";
import { ownValue } from "./own-keys.js";
import { canonicalJson } from "./stored-event.js";
import type { FieldError } from "./validate.js";

/**
 * Sealed values (CONTRACT.md "People", SD-JWT as in RFC 9901 §4.2.1): the stored event holds a
 * salted commitment where a personal value was posted; the value itself is a *disclosure* kept
 * beside the chain, so it can be withheld or erased later without changing a stored byte.
 *
 * Pure: the salts come from the caller (`Salt`), so the same inputs seal the same way.
 */

/** The one member a commitment object has. Clients never send it. */
export const SEALED_KEY = "$sealed";
/** The digest algorithm's prefix in a commitment (`sha-256:<unpadded base64url>`). */
export const SEALED_PREFIX = "sha-256:";

export interface Commitment {
  $sealed: string;
}

export type Visibility = "public" | "restricted";

/** Fields of a `VictimsRecorded` entry that are always sealed; the others are public. */
export const SEALED_VICTIM_FIELDS = ["name", "nameVariants", "age", "ageRange", "place", "notes"] as const;
/** Fields of a private person's `attributedTo` that are sealed. */
export const SEALED_PRIVATE_FIELDS = ["name", "role"] as const;
/** At least 16 random bytes (RFC 9901 §9.3: 128 bits): a base64url salt is at least 22 characters. */
export const MIN_SALT_BYTES = 16;

/** Makes a salt (base64url of at least MIN_SALT_BYTES random bytes) for the value at `pointer`. */
export type Salt = (pointer: string) => string;

/** One sealed value: what the disclosures table keeps beside the chain. */
export interface Disclosure {
  pointer: string;
  salt: string;
  value: unknown;
  /** base64url(RFC 8785 JSON of [salt, pointer, value]). */
  disclosure: string;
  /** The commitment's digest (without its `sha-256:` prefix). */
  digest: string;
  visibility: Visibility;
}

const base64url = (bytes: Buffer) => bytes.toString("base64url");

/** RFC 9901 §4.2.3: the digest is over the disclosure's ASCII text, as sent, never re-encoded. */
export function digestOf(disclosure: string): string {
  return base64url(createHash("sha256").update(disclosure, "ascii").digest());
}

export function encodeDisclosure(salt: string, pointer: string, value: unknown): string {
  return base64url(Buffer.from(canonicalJson([salt, pointer, value]), "utf8"));
}

export function commitmentOf(disclosure: string): Commitment {
  return { $sealed: `${SEALED_PREFIX}${digestOf(disclosure)}` };
}

export function isCommitment(value: unknown): value is Commitment {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as { $sealed?: unknown }).$sealed === "string"
  );
}

/** The digest a commitment names, or null when it is not one of this archive's form. */
export function commitmentDigest(value: unknown): string | null {
  if (!isCommitment(value) || !value.$sealed.startsWith(SEALED_PREFIX)) return null;
  return value.$sealed.slice(SEALED_PREFIX.length);
}

/** The three parts of a disclosure, or null when the text is not one. */
export function decodeDisclosure(
  disclosure: string,
): { salt: string; pointer: string; value: unknown } | null {
  if (!/^[A-Za-z0-9_-]+$/.test(disclosure)) return null;
  try {
    const parts: unknown = JSON.parse(Buffer.from(disclosure, "base64url").toString("utf8"));
    if (!Array.isArray(parts) || parts.length !== 3) return null;
    const [salt, pointer, value] = parts as [unknown, unknown, unknown];
    if (typeof salt !== "string" || typeof pointer !== "string") return null;
    return { salt, pointer, value };
  } catch {
    return null;
  }
}

/** RFC 6901: `~1` is `/`, `~0` is `~`, in that order. */
function tokens(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value a JSON Pointer names in `doc` (own members only), or undefined. */
export function valueAt(doc: unknown, pointer: string): unknown {
  const path = tokens(pointer);
  if (!path) return undefined;
  let here: unknown = doc;
  for (const token of path) {
    if (Array.isArray(here)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      here = here[Number(token)];
    } else if (typeof here === "object" && here !== null) {
      here = ownValue(here as Record<string, unknown>, token);
    } else return undefined;
  }
  return here;
}

/** Whether a disclosure opens the commitment found at its pointer in `event`. */
export function checkDisclosure(
  event: unknown,
  pointer: string,
  disclosure: string,
): { ok: true } | { ok: false; reason: string } {
  const parts = decodeDisclosure(disclosure);
  if (!parts) return { ok: false, reason: "is not a disclosure (base64url of a JSON array of 3)" };
  if (parts.pointer !== pointer) return { ok: false, reason: `names ${parts.pointer}, not ${pointer}` };
  const held = commitmentDigest(valueAt(event, pointer));
  if (held === null) return { ok: false, reason: `the event holds no commitment at ${pointer}` };
  if (held !== digestOf(disclosure)) return { ok: false, reason: "does not match the commitment" };
  return { ok: true };
}

/** A value the server will seal, and where it sits in the stored event. */
export interface Sealable {
  pointer: string;
  value: unknown;
}

interface EnvelopeLike {
  type: string;
  attributedTo?: { kind?: string; [field: string]: unknown };
  // biome-ignore lint/suspicious/noExplicitAny: the shape depends on `type`; the schemas checked it.
  data: any;
}

/** The pointers of every value an envelope must have sealed, with their values, in document order. */
export function sealables(envelope: EnvelopeLike): Sealable[] {
  const out: Sealable[] = [];
  const by = envelope.attributedTo;
  if (by?.kind === "private") {
    for (const field of SEALED_PRIVATE_FIELDS) {
      if (Object.hasOwn(by, field) && by[field] !== undefined)
        out.push({ pointer: `/attributedTo/${field}`, value: by[field] });
    }
  }
  if (envelope.type === "VictimsRecorded") {
    (envelope.data.victims as Record<string, unknown>[]).forEach((victim, i) => {
      for (const field of SEALED_VICTIM_FIELDS) {
        if (Object.hasOwn(victim, field) && victim[field] !== undefined)
          out.push({ pointer: `/data/victims/${i}/${field}`, value: victim[field] });
      }
    });
  }
  return out;
}

/** How visible each sealed value of an envelope starts out: `data.disclose`, else restricted. */
export function visibilityOf(envelope: EnvelopeLike, pointer: string): Visibility {
  const marks = envelope.type === "VictimsRecorded" ? envelope.data.disclose : undefined;
  const mark = marks ? ownValue(marks as Record<string, Visibility>, pointer) : undefined;
  return mark ?? "restricted";
}

/**
 * `data.disclose` may name only values this event seals. Paths say where, as the validator's do.
 * @param prefix `events[i].` in a batch, else empty
 */
export function discloseErrors(envelope: EnvelopeLike, prefix = ""): FieldError[] {
  if (envelope.type !== "VictimsRecorded" || !envelope.data.disclose) return [];
  const sealed = new Set(sealables(envelope).map((s) => s.pointer));
  return Object.keys(envelope.data.disclose as Record<string, unknown>)
    .filter((pointer) => !sealed.has(pointer))
    .map((pointer) => ({
      path: `${prefix}data.disclose.${pointer}`,
      message: `names no sealed value of this event (sealed: ${SEALED_VICTIM_FIELDS.join(", ")} of a victim given in data.victims)`,
    }));
}

/** Where a client sent a `$sealed` member (only the server makes commitments); at most `max`. */
export function clientSealedPaths(input: unknown, max = 100): string[] {
  const found: string[] = [];
  const visit = (value: unknown, path: string) => {
    if (found.length >= max || typeof value !== "object" || value === null) return;
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visit(v, `${path}[${i}]`);
      return;
    }
    for (const key of Object.keys(value)) {
      const at = path === "" ? key : `${path}.${key}`;
      if (key === SEALED_KEY) found.push(at);
      else visit((value as Record<string, unknown>)[key], at);
    }
  };
  visit(input, "");
  return found;
}

/** Sets the value at `pointer` in a copy-on-write document (the envelope is never mutated). */
function setAt<T>(doc: T, pointer: string, value: unknown): T {
  const path = tokens(pointer) ?? [];
  const write = (here: unknown, depth: number): unknown => {
    const token = path[depth] as string;
    const copy: Record<string, unknown> | unknown[] = Array.isArray(here)
      ? [...here]
      : { ...(here as Record<string, unknown>) };
    const next =
      depth === path.length - 1 ? value : write((copy as Record<string, unknown>)[token], depth + 1);
    (copy as Record<string, unknown>)[token] = next;
    return copy;
  };
  return path.length === 0 ? (value as T) : (write(doc, 0) as T);
}

/** Sets the value at an existing pointer of a document this module owns (a fresh copy). */
function setInPlace(doc: unknown, pointer: string, value: unknown): void {
  const path = tokens(pointer) ?? [];
  let here = doc as Record<string, unknown>;
  for (const token of path.slice(0, -1)) here = here[token] as Record<string, unknown>;
  here[path[path.length - 1] as string] = value;
}

/**
 * The envelope as it will be stored: each sealable value replaced by its commitment, and the
 * disclosures that open them. `salt` is asked once per pointer.
 */
export function sealEnvelope<E extends EnvelopeLike>(
  envelope: E,
  salt: Salt,
): { sealed: E; disclosures: Disclosure[] } {
  const found = sealables(envelope);
  // One copy, written in place: a copy per value would copy a list of 500 victims 3,000 times.
  const sealed = found.length === 0 ? envelope : (structuredClone(envelope) as E);
  const disclosures = found.map(({ pointer, value }) => {
    const s = salt(pointer);
    const disclosure = encodeDisclosure(s, pointer, value);
    const commitment = commitmentOf(disclosure);
    setInPlace(sealed, pointer, commitment);
    return {
      pointer,
      salt: s,
      value,
      disclosure,
      digest: commitment.$sealed.slice(SEALED_PREFIX.length),
      visibility: visibilityOf(envelope, pointer),
    };
  });
  return { sealed, disclosures };
}

/** Puts a known commitment at `pointer` (a value erased since: only its commitment is left). */
export function withCommitment<E>(envelope: E, pointer: string, digest: string): E {
  return setAt(envelope, pointer, { $sealed: `${SEALED_PREFIX}${digest}` });
}

/** Every commitment in a stored event, with its pointer, in document order. */
export function commitmentsIn(doc: unknown): { pointer: string; digest: string }[] {
  const found: { pointer: string; digest: string }[] = [];
  const escapeToken = (token: string) => token.replace(/~/g, "~0").replace(/\//g, "~1");
  const visit = (value: unknown, pointer: string) => {
    if (typeof value !== "object" || value === null) return;
    const digest = commitmentDigest(value);
    if (digest !== null) {
      found.push({ pointer, digest });
      return;
    }
    if (Array.isArray(value)) for (const [i, v] of value.entries()) visit(v, `${pointer}/${i}`);
    else for (const [k, v] of Object.entries(value)) visit(v, `${pointer}/${escapeToken(k)}`);
  };
  visit(doc, "");
  return found;
}
