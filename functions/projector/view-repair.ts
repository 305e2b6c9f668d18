import type { StoredEvent } from "../../events/stored-event.js";
import { fold, type IncidentState } from "../../events/summary.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Projector } from "./projector.js";

export interface RepairProgress {
  /** Incidents looked at so far, of `total` that lag. */
  done: number;
  total: number;
  events: number;
}

export interface RepairReport {
  /** Incidents in the events table. */
  incidents: number;
  /** Of those, views that were missing and were built from nothing. */
  built: number;
  /** Views that lagged their head and were caught up. */
  caughtUp: number;
  /** Events folded. */
  events: number;
  failed: { incidentId: string; error: string }[];
}

export interface RepairOptions {
  /** Incidents folded at once (default 8). */
  concurrency?: number;
  onProgress?: (progress: RepairProgress) => void;
}

/** BatchWriteItem takes at most 25 items. */
const BATCH = 25;

/**
 * The repair sweep: every incident whose view lags its head (or has none) is re-projected
 * from the stored events. It reads every commit's head and every view's version (two full,
 * projected scans: it promises to look at everything), then
 * - a *missing* view is folded from version 1 with no read of a view that cannot exist, and
 *   saved with others in batches of 25;
 * - a *lagging* view goes through the projector, which continues from the stored state and
 *   saves only if newer.
 * Running it twice, or beside a live projector, is harmless: a projection is idempotent.
 */
export async function repairViews(
  parts: { events: EventStore; views: ViewStore; projector: Projector; log: Logger },
  options: RepairOptions = {},
): Promise<RepairReport> {
  const { events, views, projector, log } = parts;
  const heads = await events.incidentVersions();
  const viewVersions = new Map<string, number>();
  for await (const [id, version] of views.versions()) viewVersions.set(id, version);

  const missing: string[] = [];
  const lagging: string[] = [];
  for (const [incidentId, head] of heads) {
    const view = viewVersions.get(incidentId);
    if (view === undefined) missing.push(incidentId);
    else if (view < head) lagging.push(incidentId);
  }
  const report: RepairReport = { incidents: heads.size, built: 0, caughtUp: 0, events: 0, failed: [] };
  const total = missing.length + lagging.length;
  let done = 0;
  const progressed = (n: number) => {
    done += n;
    options.onProgress?.({ done, total, events: report.events });
  };
  const failed = (incidentId: string, error: unknown) => {
    log.error("could not repair a view", { incidentId, error: String(error) });
    report.failed.push({ incidentId, error: String(error) });
  };
  const concurrency = options.concurrency ?? 8;

  // Missing views: fold from nothing, save a batch of 25 at a time.
  const batches: string[][] = [];
  for (let i = 0; i < missing.length; i += BATCH) batches.push(missing.slice(i, i + BATCH));
  await eachLimited(batches, Math.max(1, Math.ceil(concurrency / 4)), async (batch) => {
    const states: IncidentState[] = [];
    await eachLimited(batch, 4, async (incidentId) => {
      try {
        const all: StoredEvent[] = [];
        for await (const commit of events.commits(incidentId, 0, true)) all.push(...commit.events);
        states.push(fold(incidentId, all));
        report.events += all.length;
      } catch (error) {
        failed(incidentId, error);
      }
    });
    try {
      await views.saveNew(states);
      report.built += states.length;
    } catch (error) {
      for (const state of states) failed(state.incidentId, error);
    }
    progressed(batch.length);
  });

  // Lagging views: the projector folds only what they missed.
  await eachLimited(lagging, concurrency, async (incidentId) => {
    try {
      const result = await projector.project(incidentId);
      report.events += result.to - result.from;
      report.caughtUp += 1;
    } catch (error) {
      failed(incidentId, error);
    }
    progressed(1);
  });
  log.info("view repair done", { ...report, failed: report.failed.length });
  return report;
}

async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
