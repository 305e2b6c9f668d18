import { ownValue, setOwn } from "../own-keys.js";
import { EVENT_TYPES } from "../schemas.js";
import { type FieldError, parseEnvelope } from "../validate.js";
import { datasetEventId, importEventId, slugify } from "./event-ids.js";
import { type MappedRow, parseNumber, type SourceRow } from "./rows.js";

/**
 * The generic CSV format's mapping file: how a row's cells become an incident id and events.
 *
 * ```json
 * { "incidentId": "{region}-{id}",
 *   "events": [
 *     { "type": "IncidentOpened", "once": true,
 *       "fields": { "data.title": "{title}", "data.kind": "shelling", "data.location.name": "{place}",
 *                   "data.location.country": "{country}", "data.location.lat": { "column": "lat", "as": "number" },
 *                   "data.occurredOn": "{date}", "source.publisher": "{outlet}" } },
 *     { "type": "CasualtiesReported", "when": "killed",
 *       "fields": { "attributedTo.name": "{speaker}", "source.publisher": "{outlet}",
 *                   "data.figures.killed.value": { "column": "killed", "as": "integer" },
 *                   "data.figures.killed.qualifier": "exact" } } ] }
 * ```
 *
 * A field is a template (text with `{column}` placeholders; left out when every column it names
 * is empty) or `{ "column", "as": "string" | "number" | "integer" }`. `when` names a column
 * that must be non-empty for the event to be made; `once` makes the event only on the first row
 * of each incident in the file. The incident id is slugified (a-z, 0-9, -).
 */
export interface Mapping {
  incidentId: string;
  events: MappedEvent[];
}

export interface MappedEvent {
  type: string;
  once?: boolean;
  when?: string;
  fields: Record<string, FieldRule>;
}

export type FieldRule = string | { column: string; as?: "string" | "number" | "integer" };

/** Which of a mapping's events made an event of a row: its place in the mapping, its type and rules. */
interface MadeBy {
  spec: number;
  type: string;
  fields: Record<string, FieldRule>;
}

const PLACEHOLDER = /\{([^{}]+)\}/g;

function columnsOf(rule: FieldRule): string[] {
  if (typeof rule !== "string") return [rule.column];
  return [...rule.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
}

/** The mapping checked against the file's header: every problem, each naming its place in the mapping. */
export function checkMapping(
  input: unknown,
  header: readonly string[],
): { ok: true; mapping: Mapping } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const have = new Set(header);
  const named = (path: string, column: string) => {
    if (!have.has(column)) {
      errors.push({
        path,
        message: `names the column "${column}", which the file does not have (it has: ${header.join(", ")})`,
      });
    }
  };
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      ok: false,
      errors: [{ path: "(mapping)", message: "must be a JSON object with incidentId and events" }],
    };
  }
  const m = input as Record<string, unknown>;
  if (typeof m.incidentId !== "string" || columnsOf(m.incidentId).length === 0) {
    errors.push({
      path: "incidentId",
      message: 'must be a template naming at least one column, e.g. "{id}"',
    });
  } else for (const c of columnsOf(m.incidentId)) named("incidentId", c);
  if (!Array.isArray(m.events) || m.events.length === 0 || m.events.length > 25) {
    errors.push({ path: "events", message: "must list 1–25 events a row makes" });
    return { ok: false, errors };
  }
  const onceTypes = new Set<string>();
  m.events.forEach((e: unknown, i: number) => {
    const at = `events[${i}]`;
    if (typeof e !== "object" || e === null) {
      errors.push({ path: at, message: "must be an object with type and fields" });
      return;
    }
    const event = e as Record<string, unknown>;
    // A key misspelt ("onec", "whne") would be ignored and change what every row makes.
    for (const key of Object.keys(event))
      if (!SPEC_KEYS.includes(key))
        errors.push({
          path: `${at}.${key}`,
          message: `is not a key of a mapped event (${SPEC_KEYS.join(", ")})`,
        });
    if (typeof event.type !== "string") errors.push({ path: `${at}.type`, message: "is required" });
    else if (!EVENT_TYPES.includes(event.type as never))
      errors.push({ path: `${at}.type`, message: `must be one of ${EVENT_TYPES.join(", ")}` });
    if (event.once !== undefined && typeof event.once !== "boolean")
      errors.push({ path: `${at}.once`, message: "must be true or false" });
    // A `once` event is named by its incident and type (mappedRow): two of a type would be one.
    if (event.once === true && typeof event.type === "string") {
      if (onceTypes.has(event.type))
        errors.push({
          path: `${at}.once`,
          message: `is given to another ${event.type} already: an incident has one of each`,
        });
      onceTypes.add(event.type);
    }
    if (event.when !== undefined) {
      if (typeof event.when !== "string") errors.push({ path: `${at}.when`, message: "must name a column" });
      else named(`${at}.when`, event.when);
    }
    if (typeof event.fields !== "object" || event.fields === null || Array.isArray(event.fields)) {
      errors.push({ path: `${at}.fields`, message: "must map event fields to columns" });
      return;
    }
    for (const [field, rule] of Object.entries(event.fields as Record<string, unknown>)) {
      const path = `${at}.fields.${field}`;
      if (
        !/^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/.test(field) ||
        field.split(".").includes("__proto__")
      ) {
        errors.push({ path, message: "must be a dotted field path such as data.title" });
      } else if (typeof rule === "string") {
        for (const c of columnsOf(rule)) named(path, c);
      } else if (
        typeof rule === "object" &&
        rule !== null &&
        typeof (rule as { column?: unknown }).column === "string"
      ) {
        const as = (rule as { as?: unknown }).as;
        if (as !== undefined && as !== "string" && as !== "number" && as !== "integer") {
          errors.push({ path: `${path}.as`, message: "must be string, number or integer" });
        }
        named(`${path}.column`, (rule as { column: string }).column);
      } else errors.push({ path, message: "must be a template or { column, as }" });
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  // A field path misspelt (data.titel) would fail every row alike: said once, before any row.
  (m.events as MappedEvent[]).forEach((event, i) => {
    for (const path of unknownFields(event)) {
      errors.push({ path: `events[${i}].fields.${path}`, message: `is not a field of ${event.type}` });
    }
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, mapping: input as Mapping };
}

/** The fields a mapped event names that its type does not have, found by the API's own parser. */
function unknownFields(event: MappedEvent): string[] {
  const probe: Record<string, unknown> = { type: event.type };
  for (const [field, rule] of Object.entries(event.fields)) {
    const number = typeof rule !== "string" && (rule.as === "number" || rule.as === "integer");
    put(probe, field, number ? 1 : "x");
  }
  const parsed = parseEnvelope(probe);
  return parsed.ok
    ? []
    : parsed.errors.filter((e) => e.message === "is not a known field").map((e) => e.path);
}

/** The keys a mapped event may have. */
const SPEC_KEYS = ["type", "once", "when", "fields"];

function fill(template: string, cells: Record<string, string>): string | undefined {
  let any = false;
  const out = template.replace(PLACEHOLDER, (_, column: string) => {
    const value = (ownValue(cells, column) ?? "").trim();
    if (value !== "") any = true;
    return value;
  });
  return columnsOf(template).length > 0 && !any ? undefined : out;
}

function put(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = ownValue(at, key);
    if (typeof next === "object" && next !== null) at = next as Record<string, unknown>;
    else {
      const child: Record<string, unknown> = {};
      setOwn(at, key, child);
      at = child;
    }
  }
  setOwn(at, keys[keys.length - 1] as string, value);
}

/**
 * One row through a checked mapping. `seen` holds the incidents that already had a row in this
 * file (for `once`); the caller keeps it across rows.
 */
export function mappedRow(mapping: Mapping, row: SourceRow, seen: Set<string>): MappedRow {
  const cells = row.fields;
  const idText = fill(mapping.incidentId, cells);
  const incidentId = idText === undefined ? null : slugify(idText);
  if (!incidentId)
    return { ok: false, errors: [{ path: "incidentId", message: "the row's id columns are empty" }] };
  const first = !seen.has(incidentId);
  const errors: FieldError[] = [];
  const events: Record<string, unknown>[] = [];
  /** The mapping's event behind each of `events`. */
  const made: MadeBy[] = [];
  mapping.events.forEach((spec, i) => {
    if (spec.once && !first) return;
    if (spec.when !== undefined && (ownValue(cells, spec.when) ?? "").trim() === "") return;
    made.push({ spec: i, type: spec.type, fields: spec.fields });
    const event: Record<string, unknown> = { type: spec.type };
    for (const [field, rule] of Object.entries(spec.fields)) {
      if (typeof rule === "string") {
        const value = fill(rule, cells);
        if (value !== undefined) put(event, field, value);
        continue;
      }
      const text = (ownValue(cells, rule.column) ?? "").trim();
      if (text === "") continue;
      if (rule.as === "number" || rule.as === "integer") {
        const n = parseNumber(text);
        if (n === null || (rule.as === "integer" && !Number.isInteger(n))) {
          errors.push({
            path: rule.column,
            message: `must be ${rule.as === "integer" ? "an integer" : "a number"}`,
          });
          continue;
        }
        put(event, field, n);
      } else put(event, field, text);
    }
    // An event is named by what it says (its incident and content), never by the mapping's text:
    // a mapping reformatted, or put right where it failed some rows, names the events it made
    // before as before, and the archive stores them once. A `once` event is named by its incident
    // and type, so another first row on a later run is the same opening.
    const eventId = spec.once
      ? importEventId(["csv", incidentId, "once", spec.type])
      : datasetEventId("csv", incidentId, event);
    events.push({ eventId, ...event });
  });
  if (errors.length > 0) return { ok: false, errors };
  if (events.length === 0)
    return { ok: false, errors: [{ path: "(row)", message: "the mapping makes no event of this row" }] };
  seen.add(incidentId);
  return {
    ok: true,
    incidentId,
    events,
    explain: (errors) => errors.map((error) => inColumns(error, made, events.length > 1)),
  };
}

/**
 * A field error of a row's events told by the columns it came from: a recorder knows their
 * sheet, not the event's shape. `made[i]` is the mapping's event that made `events[i]`; an error
 * in a field no column fills (a constant, or a field the mapping leaves out) names its place in
 * the mapping instead. The event's field stays in the message.
 */
export function inColumns(error: FieldError, made: readonly MadeBy[], batched: boolean): FieldError {
  const at = batched ? /^events\[(\d+)\]\.?(.*)$/.exec(error.path) : ["", "0", error.path];
  const origin = at ? made[Number(at[1])] : undefined;
  if (!at || !origin) return error;
  const field = at[2] as string;
  const key = Object.keys(origin.fields)
    .filter((k) => field === k || field.startsWith(`${k}.`) || field.startsWith(`${k}[`))
    .sort((a, b) => b.length - a.length)[0];
  const what = `${field || "the event"} of the ${origin.type}`;
  const columns = key === undefined ? [] : columnsOf(origin.fields[key] as FieldRule);
  if (columns.length === 0) {
    const place = key === undefined ? "" : `.fields.${key}`;
    return { path: `(mapping) events[${origin.spec}]${place}`, message: `${what} ${error.message}` };
  }
  return { path: [...new Set(columns)].join(", "), message: `${error.message} (it fills ${what})` };
}
