import { sha256Hex } from "./stored-event.js";

/**
 * Ids the archive makes for events posted without one. They say where the event lives —
 * `ev_<32 hex of sha256(incidentId)>_<version>` — so the archive can tell, without any
 * lookup table, whether a client re-posting one is repeating that very event (the first
 * answer again) or re-using it elsewhere (409). Nothing has to be reserved at write time, so
 * an append without a client id stays one conditional put.
 */
// 128 bits of the incident's hash: two incidents sharing a tag would share ids, so the tag must
// be as hard to collide on purpose as any id a client could choose.
const SERVER_FORM = /^ev_([0-9a-f]{32})_([1-9][0-9]{0,11})$/;

export function incidentTag(incidentId: string): string {
  return sha256Hex(incidentId).slice(0, 32);
}

export function serverEventId(incidentId: string, version: number): string {
  return `ev_${incidentTag(incidentId)}_${version}`;
}

/** The incident tag and version a server-made id names; null for any other id. */
export function parseServerEventId(eventId: string): { tag: string; version: number } | null {
  const match = SERVER_FORM.exec(eventId);
  return match ? { tag: match[1] as string, version: Number(match[2]) } : null;
}
