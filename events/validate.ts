import type { $ZodError, $ZodIssue } from "zod/v4/core";
import { Batch, Envelope, EVENT_TYPES } from "./schemas.js";
import { clientSealedPaths, discloseErrors } from "./sealing.js";

export interface FieldError {
  /** Dotted path to the failing field, e.g. `events[1].data.figures.killed.value`. */
  path: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/**
 * More figures than one report may hold are refused before each is validated: a body of
 * thousands of invalid figures costs no more than one (a problem document then lists at most
 * 100 failing fields, and counts the rest: functions/http/problem.ts).
 */
const MAX_FIGURES = 50;

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out || "(body)";
}

type Issue = $ZodIssue;

/**
 * Zod reports a failed union as one issue holding every branch's failures. A reader wants the
 * failures of the branch they most likely meant: the one that got furthest (fewest issues).
 */
function flatten(issue: Issue, prefix: readonly PropertyKey[]): FieldError[] {
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
    if (best.length > 0) return best.flatMap((i) => flatten(i, path));
  }
  // A record's key refused: its own rule says why (what a category is), not zod's
  // "Invalid key in record".
  if (issue.code === "invalid_key" && issue.issues.length > 0) {
    return [{ path: formatPath(path), message: issue.issues.map((i) => i.message).join("; ") }];
  }
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => ({ path: formatPath([...path, k]), message: "is not a known field" }));
  }
  if (issue.code === "invalid_union" && path[path.length - 1] === "type") {
    return [{ path: formatPath(path), message: `must be one of ${EVENT_TYPES.join(", ")}` }];
  }
  return [{ path: formatPath(path), message: issue.message }];
}

/**
 * Where a value is of the wrong type, only that is said: zod/mini still runs the value's checks
 * (a string's length against a list's bound), whose messages would not fit what was sent.
 */
function typeFirst(issues: readonly Issue[]): Issue[] {
  const mistyped = new Set(issues.filter((i) => i.code === "invalid_type").map((i) => formatPath(i.path)));
  return issues.filter((i) => i.code === "invalid_type" || !mistyped.has(formatPath(i.path)));
}

export function toFieldErrors(error: $ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return typeFirst(error.issues).flatMap((i) => flatten(i, prefix));
}

/** A figures object with more names than a report may hold: refused whole, not name by name. */
function tooManyFigures(input: object, prefix: readonly PropertyKey[]): FieldError[] | null {
  const data = (input as { data?: unknown }).data;
  const figures =
    typeof data === "object" && data !== null ? (data as { figures?: unknown }).figures : undefined;
  if (typeof figures !== "object" || figures === null || Array.isArray(figures)) return null;
  let names = 0;
  for (const _ in figures) if (++names > MAX_FIGURES) break;
  if (names <= MAX_FIGURES) return null;
  return [
    {
      path: formatPath([...prefix, "data", "figures"]),
      message: `at most ${MAX_FIGURES} categories in one report`,
    },
  ];
}

/**
 * Members named `__proto__` (JSON.parse makes them own members): zod's records skip such a key
 * without a word, so a category or a disclose mark of that name would vanish from what is
 * stored while the event was accepted. Refused wherever they are, by their path.
 */
function protoMembers(value: unknown, path: PropertyKey[]): FieldError[] {
  if (typeof value !== "object" || value === null) return [];
  const errors: FieldError[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (key === "__proto__") {
      errors.push({ path: formatPath([...path, key]), message: "is not a name this archive takes" });
    } else errors.push(...protoMembers(member, [...path, Array.isArray(value) ? Number(key) : key]));
  }
  return errors;
}

export function parseEnvelope(input: unknown, prefix: readonly PropertyKey[] = []): Parsed<Envelope> {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const type = (input as { type?: unknown }).type;
    if (type === undefined)
      return { ok: false, errors: [{ path: formatPath([...prefix, "type"]), message: "is required" }] };
    if (!EVENT_TYPES.includes(type as never)) {
      return {
        ok: false,
        errors: [
          { path: formatPath([...prefix, "type"]), message: `must be one of ${EVENT_TYPES.join(", ")}` },
        ],
      };
    }
    const crowded = type === "CasualtiesReported" ? tooManyFigures(input, prefix) : null;
    if (crowded) return { ok: false, errors: crowded };
    const proto = protoMembers(input, [...prefix]);
    if (proto.length > 0) return { ok: false, errors: proto };
  }
  const result = Envelope.safeParse(input);
  if (result.success) {
    // `data.disclose` may mark only the values this event seals (events/sealing.ts).
    const marks = discloseErrors(result.data, prefix.length > 0 ? `${formatPath(prefix)}.` : "");
    return marks.length > 0 ? { ok: false, errors: marks } : { ok: true, value: result.data };
  }
  const errors = everyFailingField(input, result.error, prefix);
  const revised = (input as { type?: unknown } | null)?.type === "IncidentRevised";
  return { ok: false, errors: revised ? errors.map(wholePlace) : errors };
}

/**
 * A revision that changes part of a place (its precision, its point) is refused for the name and
 * country it left out: said with the rule that makes them required there.
 */
function wholePlace(error: FieldError): FieldError {
  return /(^|\.)data\.location\.(name|country)$/.test(error.path) && error.message === "is required"
    ? {
        ...error,
        message:
          "is required: a revised location replaces the whole place, so give its name and country again with what changes",
      }
    : error;
}

/** More levels than any envelope nests required objects (`data.location` is two): the loop ends whatever is sent. */
const MAX_NESTED_OBJECTS = 8;

/**
 * Zod names a missing object (`data.location`, `source`) as one failure, "is required", and
 * checks none of the fields inside it: a form would then learn of them a few at a time, one
 * refusal after another. Each missing object is put in empty and the envelope checked again, so
 * its own required fields are named (`data.location.name`, `data.location.country`), and theirs
 * in turn. The copy is only ever read for its failures: what the client sent is what is stored.
 */
function everyFailingField(input: unknown, error: $ZodError, prefix: readonly PropertyKey[]): FieldError[] {
  let issues = error.issues;
  let filled = input;
  const emptied: PropertyKey[][] = [];
  for (let depth = 0; depth < MAX_NESTED_OBJECTS; depth++) {
    const missing = issues.filter(
      (i) => i.code === "invalid_type" && i.expected === "object" && isAbsent(filled, i.path),
    );
    if (missing.length === 0) break;
    for (const issue of missing) {
      filled = withEmptyObject(filled, issue.path);
      emptied.push(issue.path);
    }
    const again = Envelope.safeParse(filled);
    issues = again.success ? [] : again.error.issues;
  }
  const errors = typeFirst(issues).flatMap((i) => flatten(i, prefix));
  // An object none of whose fields is required passes empty: it is still missing, so said so.
  for (const path of emptied)
    if (!issues.some((i) => startsWith(i.path, path)))
      errors.push({ path: formatPath([...prefix, ...path]), message: "is required" });
  return errors;
}

const startsWith = (path: readonly PropertyKey[], head: readonly PropertyKey[]) =>
  head.every((key, i) => path[i] === key);

/** Whether `path` names a member absent from an object that is there (not one of the wrong type). */
function isAbsent(root: unknown, path: readonly PropertyKey[]): boolean {
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  const last = path[path.length - 1];
  if (last === undefined || typeof node !== "object" || node === null || Array.isArray(node)) return false;
  return !Object.hasOwn(node, last) || (node as Record<PropertyKey, unknown>)[last] === undefined;
}

/** A copy of `root` with `{}` at `path`, sharing every part off that path; `root` is left as it was. */
function withEmptyObject(root: unknown, path: readonly PropertyKey[]): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return {};
  const node = (typeof root === "object" && root !== null ? root : {}) as Record<PropertyKey, unknown>;
  const copy = (Array.isArray(node) ? [...node] : { ...node }) as Record<PropertyKey, unknown>;
  // Defined, never assigned: a key is never a setter on the prototype.
  Object.defineProperty(copy, key, {
    value: withEmptyObject(Object.hasOwn(node, key) ? node[key] : undefined, rest),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  return copy;
}

/** A parsed append body, and whether it was a batch (`{ events: [...] }`): error paths name `events[i]` then. */
export type ParsedAppend =
  | { ok: true; value: Envelope[]; batched: boolean }
  | { ok: false; errors: FieldError[] };

/** The body of an append: one envelope, or `{ events: [...] }` with 1–25 of them. */
export function parseAppendBody(body: unknown): ParsedAppend {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      errors: [{ path: "(body)", message: "must be a JSON object: one event, or { events: [...] }" }],
    };
  }
  // Only the server makes commitments: a client's `$sealed` is refused wherever it is.
  const sealed = clientSealedPaths(body);
  if (sealed.length > 0) {
    return {
      ok: false,
      errors: sealed.map((path) => ({
        path,
        message: "is made by the server only: clients never send $sealed",
      })),
    };
  }
  if (!("events" in body)) {
    const one = parseEnvelope(body);
    return one.ok ? { ok: true, value: [one.value], batched: false } : one;
  }
  const batch = Batch.safeParse(body);
  if (!batch.success) return { ok: false, errors: toFieldErrors(batch.error) };
  const parsed: Parsed<Envelope>[] = [];
  const errors: FieldError[] = [];
  for (const [i, raw] of batch.data.events.entries()) {
    const one = parseEnvelope(raw, ["events", i]);
    parsed.push(one);
    if (!one.ok) errors.push(...one.errors);
  }
  const seen = new Map<string, number>();
  parsed.forEach((p, i) => {
    const id = p.ok ? p.value.eventId : undefined;
    if (!id) return;
    const first = seen.get(id);
    if (first === undefined) seen.set(id, i);
    else errors.push({ path: `events[${i}].eventId`, message: `repeats the eventId of events[${first}]` });
  });
  const events = parsed.flatMap((p) => (p.ok ? [p.value] : []));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: events, batched: true };
}
