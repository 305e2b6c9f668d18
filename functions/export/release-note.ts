import { TEXT_PATTERN } from "../../events/schemas.js";

/** A release's note: at most this many characters, counted in code points (as JSON Schema counts). */
export const NOTE_MAX = 2000;

/** Empty, or text by the events' rule (TEXT_PATTERN): what the OpenAPI document says of `note`. */
export const RELEASE_NOTE_PATTERN = `^(?:${TEXT_PATTERN.slice(1, -1)})?$`;
const NOTE = new RegExp(RELEASE_NOTE_PATTERN, "u");

/** Whether `note` is a note a release may carry: the rule of events' text, or empty. */
export function validNote(note: string): boolean {
  if (/[\uD800-\uDFFF]/u.test(note)) return false; // a lone surrogate: RFC 8785 has no form for it
  if (note !== "" && note.trim() === "") return false;
  return NOTE.test(note) && [...note].length <= NOTE_MAX;
}
