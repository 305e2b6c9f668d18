import { commitmentOf, decodeDisclosure } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { hasRole, type Principal } from "../http/auth.js";
import type { OpenedValues } from "../http/pages/opened-values.js";
import type { CommitMemo } from "../store/commit-reader.js";
import type { DisclosureReader } from "./disclosure-reader.js";

/** Events a page opens the private speakers of, at most: a summary's lists and a timeline page. */
const EVENTS_OPENED = 400;
const READS_AT_ONCE = 16;

interface EventFinder {
  findEvent(incidentId: string, eventId: string, memo?: CommitMemo): Promise<StoredEvent | null>;
}

/**
 * The names and roles of the private persons a page shows, for a restricted-reader (for anyone
 * else: none). Each event that names one, in the summary's rows or on the timeline page, is read
 * with its `attributedTo` disclosures, each read recorded as every restricted read is; the values
 * are keyed by their commitment, so every row copied from that event finds them.
 */
export async function openPrivateSpeakers(
  events: EventFinder,
  disclosures: DisclosureReader | undefined,
  shown: { incidentId: string; summary: unknown; timeline: readonly StoredEvent[] },
  who: Principal | null,
  via: string,
): Promise<OpenedValues> {
  const opened = new Map<string, unknown>();
  if (!disclosures || !hasRole(who, "restricted-reader")) return opened;
  const known = new Map(shown.timeline.map((e) => [e.eventId, e]));
  const ids = new Set([
    ...privateRowIds(shown.summary),
    ...shown.timeline.filter(isPrivate).map((e) => e.eventId),
  ]);
  const memo: CommitMemo = new Map();
  const wanted = [...ids].slice(0, EVENTS_OPENED);
  // A few reads at a time: a page naming many private speakers is not one burst on the tables.
  for (let i = 0; i < wanted.length; i += READS_AT_ONCE) {
    const served = await Promise.all(
      wanted.slice(i, i + READS_AT_ONCE).map(async (id) => {
        const event = known.get(id) ?? (await events.findEvent(shown.incidentId, id, memo));
        if (!event || !isPrivate(event)) return [];
        return (await disclosures.ofEvent(event, who, via, (p) => p.startsWith("/attributedTo/"))).items;
      }),
    );
    for (const d of served.flat())
      opened.set(commitmentOf(d.disclosure).$sealed, decodeDisclosure(d.disclosure)?.value);
  }
  return opened;
}

const isPrivate = (row: { attributedTo?: { kind?: string } }) => row.attributedTo?.kind === "private";

/** The eventIds of every row of a summary that a private person is attributed. */
function privateRowIds(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) privateRowIds(item, out);
  else if (typeof node === "object" && node !== null) {
    const row = node as { eventId?: unknown; attributedTo?: { kind?: string } };
    if (typeof row.eventId === "string" && isPrivate(row)) out.add(row.eventId);
    for (const value of Object.values(node)) privateRowIds(value, out);
  }
  return out;
}
