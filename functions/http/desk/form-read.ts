import type { FieldError } from "../../../events/validate.js";
import type { FormValues } from "./form-kit.js";

/**
 * From a posted form to the event the API would be sent, and from the API's problem paths back
 * to the form's fields. Reading a form is not validating an event: a number typed in words is
 * reported here (the schema cannot see what was typed), every rule of the event is the API's.
 */

/** The posted fields, in order; a textarea's CRLF is the browser's, not the writer's. */
export function formValues(body: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, raw] of new URLSearchParams(body)) values.set(name, raw.replace(/\r\n?/g, "\n"));
  return values;
}

/** Parts of the envelope a form may fill; anything else posted is not copied into the event. */
const ENVELOPE_PARTS = /^(?:source|attributedTo|data)\.[A-Za-z]+(?:\.[A-Za-z]+)*$|^occurredAt$/;

/** A whole number as people write it: "4000", "4,000", "4 000". */
const WHOLE = /^\d{1,3}(?:[ ,]\d{3})+$|^\d+$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

export interface ReadForm {
  body: Record<string, unknown>;
  /** Field name → what could not be read; these fields' problems from the API are replaced. */
  errors: Map<string, string>;
}

/**
 * The envelope from the fields named by their place in it: blank fields are left out (as a
 * client leaves out an optional field), text is kept as typed. `wholeNumbers` and `decimals`
 * name the fields read as numbers; one that is not a number is passed on as typed (so the
 * event is refused) with a message saying what was expected.
 */
export function readEnvelope(
  type: string,
  values: FormValues,
  options: {
    wholeNumbers?: readonly string[];
    decimals?: readonly string[];
    skip?: (name: string) => boolean;
  } = {},
): ReadForm {
  const body: Record<string, unknown> = { type };
  const errors = new Map<string, string>();
  const eventId = values.get("eventId");
  if (eventId) body.eventId = eventId;
  for (const [name, raw] of values) {
    if (!ENVELOPE_PARTS.test(name) || options.skip?.(name) || raw.trim() === "") continue;
    let value: unknown = raw;
    if (options.wholeNumbers?.includes(name)) value = readWhole(raw, name, errors);
    else if (options.decimals?.includes(name)) {
      if (DECIMAL.test(raw.trim())) value = Number(raw.trim());
      else errors.set(name, "must be a number, e.g. 48.7305");
    }
    setPath(body, name.split("."), value);
  }
  return { body, errors };
}

/** A whole number from a field, or the text as typed with a message in `errors`. */
export function readWhole(raw: string, name: string, errors: Map<string, string>): unknown {
  const text = raw.trim();
  if (WHOLE.test(text)) return Number(text.replace(/[ ,]/g, ""));
  errors.set(name, "must be a whole number in digits, e.g. 50");
  return raw;
}

export function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (typeof next === "object" && next !== null) node = next as Record<string, unknown>;
    else {
      const made: Record<string, unknown> = {};
      Object.defineProperty(node, key, { value: made, enumerable: true, writable: true, configurable: true });
      node = made;
    }
  }
  const last = path[path.length - 1] as string;
  Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
}

/** `events[0].data.quote` → `data.quote`: the desk posts one event at a time. */
export const eventPath = (path: string) => path.replace(/^events\[\d+\]\.?/, "");

/**
 * The field a problem path names: itself when the form has that field, else the nearest
 * enclosing one (`source.url` for a bad URL's inner path), or the first inside it; null when
 * no field holds it.
 */
export function nearestField(path: string, fields: ReadonlySet<string>): string | null {
  const parts = path.split(".");
  for (let n = parts.length; n > 0; n--) {
    const name = parts.slice(0, n).join(".");
    if (fields.has(name)) return name;
  }
  // A missing object (`source` when nothing of it was filled in): its first field.
  for (const name of fields) if (name.startsWith(`${path}.`)) return name;
  return null;
}

/** A message that goes on from the field's name ("is required", "must be …"). */
const PREDICATE = /^(?:is|are|must|has|have|names|would|was|were|cannot|can|does|may|needs|should)\b/;

/**
 * "Publisher" + "is required" → "Publisher is required"; "Invalid URL" → "Web address: invalid
 * URL"; "Day it happened" + "give … not both" → "Day it happened: give … not both".
 */
export function sentence(label: string, message: string): string {
  return PREDICATE.test(message)
    ? `${label} ${message}`
    : `${label}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
}

/**
 * A choice's values, as the API lists them to the end of its message ("must be one of exact,
 * near, …, country, water", events/schemas.ts): values to send, never field names.
 */
const CHOICES = /\bmust be one of\b/;

/**
 * The API's field names in a message (`occurredOn`, `timePrecision`, `title`) as the labels of
 * the form's fields they are, quoted; a name the form has no field for stays as it is, and so
 * does every value of a choice (`country` among the place's precisions is not the Country field).
 */
export function inFormWords(
  message: string,
  path: string,
  fieldFor: (path: string) => string | null,
  label: (field: string) => string,
): string {
  const parent = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "";
  const choices = message.search(CHOICES);
  const names = choices === -1 ? message : message.slice(0, choices);
  const values = choices === -1 ? "" : message.slice(choices);
  const named = names.replace(/\b[a-z][A-Za-z]*\b/g, (word) => {
    for (const candidate of [parent ? `${parent}.${word}` : "", `data.${word}`]) {
      const field = candidate ? fieldFor(candidate) : null;
      // Only the field itself: a nearest field (the first of `source` for "source") is not it.
      if (field !== null && (field === candidate || field.endsWith(`.${word}`) || field === word))
        return `“${label(field)}”`;
    }
    return word;
  });
  return named + values;
}

/** Problems from the API, as field messages: the form's own reading errors win for their field. */
export function fieldMessages(
  problems: readonly FieldError[],
  read: ReadonlyMap<string, string>,
  fieldFor: (path: string) => string | null,
  label: (field: string) => string,
): { fields: Map<string, string>; general: string[] } {
  const fields = new Map<string, string>();
  const general: string[] = [];
  for (const [field, message] of read) fields.set(field, sentence(label(field), message));
  for (const problem of problems) {
    // A missing object is also named by each field it needs: those are the form's fields.
    if (problems.some((other) => other.path.startsWith(`${problem.path}.`))) continue;
    const path = eventPath(problem.path);
    const field = fieldFor(path);
    if (field === null) general.push(`${path}: ${inFormWords(problem.message, path, fieldFor, label)}`);
    else if (!fields.has(field))
      fields.set(field, sentence(label(field), inFormWords(problem.message, path, fieldFor, label)));
  }
  return { fields, general };
}
