import { checkDisclosure } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import type { LogSource } from "./source.js";

/** One line of a disclosures file (GET /export/disclosures.ndjson), and what checking it found. */
export interface DisclosureFinding {
  line: number;
  incidentId: string;
  eventId: string;
  pointer: string;
  problem: string;
}

export interface DisclosuresReport {
  checked: number;
  bad: DisclosureFinding[];
}

/**
 * Checks every disclosure of a file against the commitment at its pointer in the event as the
 * archive serves it (each incident's events read once): its [salt, pointer, value] must name that
 * pointer and its SHA-256 must be the commitment's. Reports every line that does not hold.
 */
export async function verifyDisclosures(source: LogSource, text: string): Promise<DisclosuresReport> {
  const byIncident = new Map<string, Map<string, StoredEvent>>();
  const eventsOf = async (incidentId: string) => {
    let events = byIncident.get(incidentId);
    if (!events) {
      events = new Map();
      for (let after: number | null = 0; after !== null; ) {
        const page = await source.events(incidentId, after);
        for (const e of page.items) events.set(e.eventId, e);
        after = page.next;
      }
      byIncident.set(incidentId, events);
    }
    return events;
  };
  const bad: DisclosureFinding[] = [];
  let checked = 0;
  for (const [i, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    checked += 1;
    const line = i + 1;
    let entry: { incidentId?: unknown; eventId?: unknown; pointer?: unknown; disclosure?: unknown };
    try {
      entry = JSON.parse(raw);
    } catch {
      bad.push({ line, incidentId: "", eventId: "", pointer: "", problem: "is not JSON" });
      continue;
    }
    const { incidentId, eventId, pointer, disclosure } = entry;
    if (
      typeof incidentId !== "string" ||
      typeof eventId !== "string" ||
      typeof pointer !== "string" ||
      typeof disclosure !== "string"
    ) {
      bad.push({
        line,
        incidentId: String(incidentId),
        eventId: String(eventId),
        pointer: String(pointer),
        problem: "lacks incidentId, eventId, pointer or disclosure",
      });
      continue;
    }
    let event: StoredEvent | undefined;
    try {
      event = (await eventsOf(incidentId)).get(eventId);
    } catch (e) {
      bad.push({
        line,
        incidentId,
        eventId,
        pointer,
        problem: `its incident's events cannot be read (${(e as Error).message})`,
      });
      continue;
    }
    if (!event) {
      bad.push({ line, incidentId, eventId, pointer, problem: "names no event the archive serves" });
      continue;
    }
    const check = checkDisclosure(event, pointer, disclosure);
    if (!check.ok) bad.push({ line, incidentId, eventId, pointer, problem: check.reason });
  }
  return { checked, bad };
}
