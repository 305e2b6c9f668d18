import { isCalendarDay } from "../../events/calendar.js";

/**
 * An RFC 3339 instant with its zone (`Z` or `±hh:mm`), or, where `zoneless` says so, without
 * one (a `datetime-local` field's value), read as UTC. Date.parse rolls 2022-02-30 over into
 * March: the calendar fields must survive the trip, so an impossible date is refused. The one
 * parser of instants for the API's `asOf` and the pages' `asOf`.
 */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i;

export function parseInstant(raw: string, options: { zoneless?: boolean } = {}): string | null {
  const match = INSTANT.exec(raw);
  if (!match) return null;
  const [, y, mo, d, , , , zone] = match;
  if (!zone && !options.zoneless) return null;
  const time = Date.parse(zone ? raw : `${raw}Z`);
  const real = isCalendarDay(Number(y), Number(mo), Number(d));
  return Number.isNaN(time) || !real ? null : new Date(time).toISOString();
}
