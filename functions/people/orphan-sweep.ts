import type { StoredEvent } from "../../events/stored-event.js";
import type { Logger } from "../logger.js";
import { ABANDONED_AFTER_MS } from "../store/claims.js";
import type { DisclosureItem, DisclosureStore } from "./disclosure-store.js";

/**
 * How old a disclosures item must be before the sweep may take it: the writer deadline, twice,
 * as for abandoned claims (claims.ts): `writtenAt` is on the writer's clock, the age on the
 * sweep's, and the margin is room for the skew between them.
 */
export const ORPHAN_AFTER_MS = ABANDONED_AFTER_MS;

export interface OrphanSweepDeps {
  disclosures: DisclosureStore;
  /** Whether an event is stored (the event store's findEvent: its claim, then its commit). */
  findEvent: (incidentId: string, eventId: string) => Promise<StoredEvent | null>;
  now?: () => string;
  log?: Logger;
}

export interface OrphanSweepReport {
  /** Items read (packs, and first-layout items of one value each). */
  items: number;
  /** Items of stored events: never taken. */
  stored: number;
  /** Items younger than ORPHAN_AFTER_MS: their append may still commit. */
  young: number;
  /** First-layout items without a time, given the sweep's now: taken on a later run, if still orphans. */
  stamped: number;
  /** Orphans removed. */
  removed: number;
  /** Orphans a writer relied on again between the read and the delete (kept: it moved their time). */
  raced: number;
}

/**
 * Removes the disclosures that no event will ever commit to: those written before an append
 * that then failed (the sealing append writes them first, functions/people/sealed-append.ts).
 * Such an item is never served, but it holds what a writer sent. It is taken only when both
 * hold:
 *
 * - it is older than ORPHAN_AFTER_MS: the store commits a sealed event only within
 *   WRITER_DEADLINE_MS of the writer's clock noted before its disclosures were written, and a
 *   retry that relies on them again first moves their `writtenAt` forward, so no writer can
 *   still commit an event relying on an item past that age;
 * - its event is not stored (asked after the age was read).
 *
 * The delete is conditional on the `writtenAt` the sweep read, so a retry that moved it in
 * between keeps its item. An item without a time (the first layout wrote none) is given the
 * sweep's clock first, and its age counted from that.
 */
export async function sweepOrphanDisclosures(deps: OrphanSweepDeps): Promise<OrphanSweepReport> {
  const now = deps.now ?? (() => new Date().toISOString());
  const report: OrphanSweepReport = { items: 0, stored: 0, young: 0, stamped: 0, removed: 0, raced: 0 };
  const stored = new Map<string, Promise<boolean>>();
  const isStored = (item: DisclosureItem) => {
    const key = `${item.incidentId}\n${item.eventId}`;
    let found = stored.get(key);
    if (!found) {
      found = deps.findEvent(item.incidentId, item.eventId).then((e) => e !== null);
      stored.set(key, found);
    }
    return found;
  };
  for await (const page of deps.disclosures.itemPages()) {
    for (const item of page) {
      report.items += 1;
      const at = now();
      if (item.writtenAt === undefined) {
        if (await deps.disclosures.stamp(item, at)) report.stamped += 1;
        continue;
      }
      if (!(Date.parse(at) - Date.parse(item.writtenAt) > ORPHAN_AFTER_MS)) {
        report.young += 1;
        continue;
      }
      if (await isStored(item)) {
        report.stored += 1;
        continue;
      }
      if (await deps.disclosures.removeOrphan({ ...item, writtenAt: item.writtenAt })) report.removed += 1;
      else report.raced += 1;
    }
  }
  // Counts and keys only: an item's values are never read here, let alone logged.
  deps.log?.info("orphan disclosures swept", { ...report });
  return report;
}
