import { commitmentsIn, type Visibility } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { hasRole, type Principal } from "../http/auth.js";
import { type Logger, silentLogger } from "../logger.js";
import type { AuditLog } from "./audit-log.js";
import type { DisclosureStore } from "./disclosure-store.js";

export interface ServedDisclosure {
  pointer: string;
  disclosure: string;
  visibility: Visibility;
}

/** What a reader may see of one event: its disclosures, and which of its values were erased. */
export interface EventDisclosures {
  items: ServedDisclosure[];
  /** Pointers whose values a redaction erased for good (public knowledge: its RedactionApplied says so). */
  erased: string[];
}

/**
 * What a reader may see of an event's sealed values: the disclosures that open its commitments
 * (an item no commitment names, an orphan of an unstored attempt, is never served), public ones
 * for anyone, restricted ones too for a `restricted-reader` — each such read recorded first, so
 * no restricted value leaves without its record, then logged (pointers, never values) as a line
 * the alarm on bursts of restricted reads counts (infra/evidence-bucket.ts).
 */
export class DisclosureReader {
  private readonly now: () => string;
  private readonly log: Logger;

  constructor(
    private readonly disclosures: DisclosureStore,
    private readonly audit: AuditLog,
    options: { now?: () => string; log?: Logger } = {},
  ) {
    this.now = options.now ?? (() => new Date().toISOString());
    this.log = options.log ?? silentLogger;
  }

  /** `only`: the pointers wanted (default every one); only those are read, and recorded as read. */
  async ofEvent(
    event: StoredEvent,
    who: Principal | null,
    via: string,
    only: (pointer: string) => boolean = () => true,
  ): Promise<EventDisclosures> {
    const commitments = commitmentsIn(event).filter((c) => only(c.pointer));
    if (commitments.length === 0) return { items: [], erased: [] };
    const wanted = new Map(commitments.map((c) => [`${c.pointer}#${c.digest}`, c.pointer]));
    const held = await this.disclosures.ofEvent(event.incidentId, event.eventId);
    const restricted = hasRole(who, "restricted-reader");
    const items: ServedDisclosure[] = [];
    const erased: string[] = [];
    for (const h of held) {
      if (!wanted.has(`${h.pointer}#${h.digest}`)) continue;
      if (h.erased) {
        erased.push(h.pointer);
        continue;
      }
      if (h.visibility === "restricted" && !restricted) continue;
      items.push({ pointer: h.pointer, disclosure: h.disclosure, visibility: h.visibility });
    }
    const order = new Map(commitments.map((c, i) => [c.pointer, i]));
    items.sort((a, b) => (order.get(a.pointer) ?? 0) - (order.get(b.pointer) ?? 0));
    const read = items.filter((i) => i.visibility === "restricted").map((i) => i.pointer);
    if (read.length > 0 && who) {
      const at = this.now();
      await this.audit.record({
        who: who.name,
        incidentId: event.incidentId,
        eventId: event.eventId,
        pointers: read,
        via,
        at,
      });
      this.log.info("restricted disclosure read", {
        audit: "restricted-disclosure-read",
        reader: who.name,
        incidentId: event.incidentId,
        eventId: event.eventId,
        pointers: read,
        via,
        at,
      });
    }
    return { items, erased };
  }
}
