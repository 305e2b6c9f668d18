import type { Context, MiddlewareHandler } from "hono";
import { GRADES, type Grade, IncidentId } from "../../events/schemas.js";
import type { FieldError } from "../../events/validate.js";
import { MalformedRequestError, NotFoundError, ValidationError } from "../errors.js";
import { parseInstant } from "./instant.js";

function badQuery(name: string, message: string): MalformedRequestError {
  return new MalformedRequestError(`query parameter ${name} ${message}`, [
    { path: `query.${name}`, message },
  ]);
}

/**
 * Every route declares the query parameters it reads: `app.get(path, acceptQuery("after",
 * "limit"), handler)`. Any other name is refused, each one named, so a typo (`?contestd=true`)
 * is a 400 instead of a silently unfiltered answer. The OpenAPI document lists the same names
 * (a test holds the two together).
 */
export function acceptQuery(...names: string[]): MiddlewareHandler {
  const known = new Set(names);
  const allowed = names.length === 0 ? "takes no query parameters" : `takes only ${names.join(", ")}`;
  return async (c, next) => {
    const given = c.req.queries();
    const unknown = Object.keys(given).filter((name) => !known.has(name));
    // A name given twice (`?from=2022-04-08&from=2022-05-01`) has no one meaning: refused, not the first taken.
    const repeated = Object.keys(given).filter((name) => known.has(name) && (given[name]?.length ?? 0) > 1);
    if (repeated.length > 0 && unknown.length === 0) {
      const message = "is given more than once; give it once";
      throw new MalformedRequestError(
        `query parameter${repeated.length === 1 ? "" : "s"} ${repeated.join(", ")} given more than once`,
        repeated.map((name) => ({ path: `query.${name}`, message })),
      );
    }
    if (unknown.length > 0) {
      const message = `is not a query parameter of this route, which ${allowed}`;
      throw new MalformedRequestError(
        `unknown query parameter${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}: this route ${allowed}`,
        unknown.map((name) => ({ path: `query.${name}`, message })),
      );
    }
    const undecodable = undecodableQuery(c.req.url);
    if (undecodable.length > 0) {
      const message = "is not UTF-8 text once percent-decoded (a %XX sequence that no character is)";
      throw new MalformedRequestError(
        `query parameter${undecodable.length === 1 ? "" : "s"} ${undecodable.join(", ")} ${message}`,
        undecodable.map((name) => ({ path: `query.${name}`, message })),
      );
    }
    await next();
  };
}

/**
 * The query parameters whose value percent-decodes to no text (`%ED%A0%80`, half of a
 * character): the router keeps such a value as it was sent, `%` signs and all, so it would be
 * read as other words than the ones meant.
 */
function undecodableQuery(url: string): string[] {
  const search = url.indexOf("?") < 0 ? "" : (url.slice(url.indexOf("?") + 1).split("#")[0] ?? "");
  const names: string[] = [];
  for (const pair of search.split("&")) {
    const at = pair.indexOf("=");
    const [name, value] = at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)];
    try {
      decodeURIComponent(value.replace(/\+/g, " "));
    } catch {
      names.push(safeName(name));
    }
  }
  return [...new Set(names)];
}

/** A parameter's name as an error can say it: decoded where it decodes, shortened. */
function safeName(raw: string): string {
  try {
    return decodeURIComponent(raw).slice(0, 50);
  } catch {
    return raw.slice(0, 50);
  }
}

/**
 * A whole number as a request writes it, for every query and path parameter of the API: decimal
 * digits without a leading zero (`-1` where the range allows it), a safe integer within `range`;
 * else 400 naming `path` (`query.limit`, `path.index`).
 */
export function wholeNumber(raw: string, path: string, range: { min: number; max: number }): number {
  const value = /^(0|-?[1-9]\d{0,15})$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max) {
    const message = `must be a whole number from ${range.min} to ${range.max}`;
    const [where, name] = path.split(".") as [string, string];
    throw new MalformedRequestError(`${where} parameter ${name} ${message}`, [{ path, message }]);
  }
  return value;
}

export function intQuery(
  c: Context,
  name: string,
  range: { min: number; max: number; fallback?: number },
): number | undefined {
  const raw = c.req.query(name);
  return raw === undefined ? range.fallback : wholeNumber(raw, `query.${name}`, range);
}

/** An RFC 3339 instant with its zone (functions/http/instant.ts): what was known then must not depend on where it is asked. */
export function instantQuery(c: Context, name: string): string | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  const instant = parseInstant(raw);
  if (instant === null) {
    throw badQuery(name, "must be an ISO 8601 time with its zone, e.g. 2022-04-08T12:00:00Z");
  }
  return instant;
}

export function boolQuery(c: Context, name: string): boolean | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (raw !== "true" && raw !== "false") throw badQuery(name, "must be true or false");
  return raw === "true";
}

export function stringQuery(c: Context, name: string, pattern: RegExp, hint: string): string | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (!pattern.test(raw)) throw badQuery(name, hint);
  return raw;
}

/** Reads: an id that is not a valid slug cannot name an incident, so it is simply not found. */
export function incidentToRead(c: Context): string {
  const id = c.req.param("incidentId") ?? "";
  if (!IncidentId.safeParse(id).success)
    throw new NotFoundError(`no incident ${id}: incident ids are 3–96 characters of a-z, 0-9 and -`);
  return id;
}

/** Writes: the id is part of what will be stored, so a bad one is an invalid event. */
export function incidentToWrite(c: Context): string {
  const id = c.req.param("incidentId") ?? "";
  const problem = incidentIdProblem(id);
  if (problem) throw new ValidationError(`incidentId ${problem.message}`, [problem]);
  return id;
}

/** What is wrong with an incident id a writer gives, as the append names it, or null. */
export function incidentIdProblem(id: string): FieldError | null {
  const parsed = IncidentId.safeParse(id);
  if (parsed.success) return null;
  return { path: "incidentId", message: parsed.error.issues[0]?.message ?? "is not a valid incident id" };
}

/** If-Match: "N" (a bare N is taken too). "0": the incident must not exist yet. */
export function expectedVersion(c: Context): number | undefined {
  const raw = c.req.header("if-match");
  if (raw === undefined) return undefined;
  const match = /^\s*(?:"(0|[1-9]\d{0,11})"|(0|[1-9]\d{0,11}))\s*$/.exec(raw);
  if (!match) {
    const message = 'must be the version as a strong tag, e.g. "3" ("0": the incident must not exist yet)';
    throw new MalformedRequestError(`If-Match ${message}`, [{ path: "headers.If-Match", message }]);
  }
  return Number(match[1] ?? match[2]);
}

/** One of the ledger's grades (CONTRACT.md "Coding for research"), or undefined. */
export function gradeOf(text: string): Grade | undefined {
  return (GRADES as readonly string[]).includes(text) ? (text as Grade) : undefined;
}

/** What a page says of a grade it does not know. */
export const GRADE_HINT = `Grade must be one of ${GRADES.join(", ")}.`;
