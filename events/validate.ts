import type { $ZodError, $ZodIssue } from "zod/v4/core";
import { Batch, Envelope, EVENT_TYPES } from "./schemas.js";
import { clientSealedPaths, discloseErrors } from "./sealing.js";

export interface FieldError {
  /** Dotted path to the failing field, e.g. `events[1].data.figures.killed.value`. */
  path: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

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
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => ({ path: formatPath([...path, k]), message: "is not a known field" }));
  }
  if (issue.code === "invalid_union" && path[path.length - 1] === "type") {
    return [{ path: formatPath(path), message: `must be one of ${EVENT_TYPES.join(", ")}` }];
  }
  return [{ path: formatPath(path), message: issue.message }];
}

export function toFieldErrors(error: $ZodError, prefix: readonly PropertyKey[] = []): FieldError[] {
  return error.issues.flatMap((i) => flatten(i, prefix));
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
  }
  const result = Envelope.safeParse(input);
  if (result.success) {
    // `data.disclose` may mark only the values this event seals (events/sealing.ts).
    const marks = discloseErrors(result.data, prefix.length > 0 ? `${formatPath(prefix)}.` : "");
    return marks.length > 0 ? { ok: false, errors: marks } : { ok: true, value: result.data };
  }
  return { ok: false, errors: toFieldErrors(result.error, prefix) };
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
  const parsed = batch.data.events.map((raw, i) => parseEnvelope(raw, ["events", i]));
  const errors: FieldError[] = parsed.flatMap((p) => (p.ok ? [] : p.errors));
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
