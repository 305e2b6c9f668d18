import type { EditorialIndex } from "../editorial/editorial-index.js";
import type { Logger } from "../logger.js";
import { eachLimited } from "../store/dynamo-idioms.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Projector } from "./projector.js";
import { ViewBatches } from "./view-batches.js";
import { FoldFromNothing, scanAndFold } from "./view-rebuild.js";

export interface RepairProgress {
  /** Views written so far, of `total` that lag (unknown while a rebuild's scan runs). */
  done: number;
  total?: number;
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
  /** Segments of the parallel scan that rebuilds an empty views table (default 4). */
  segments?: number;
  onProgress?: (progress: RepairProgress) => void;
}

/**
 * The repair sweep: every incident whose view lags its head (or has none) is re-projected
 * from the stored events. It reads every view's version (a full, projected scan: it promises
 * to look at everything), then
 * - with no view at all (a new views table, a rebuild), it scans the events table once, whole,
 *   folding each incident from nothing as its items go by (view-rebuild.ts);
 * - otherwise it reads every commit's head (a projected scan); a *missing* view is folded from
 *   version 1 with no read of a view that cannot exist, and a *lagging* one goes through the
 *   projector, which continues from the stored state and saves only if newer.
 * Views built from nothing, and their snapshots, are written 25 at a time (view-batches.ts),
 * exactly as the projector would have made them.
 * Running it twice, or beside a live projector, is harmless: a projection is idempotent.
 */
export async function repairViews(
  parts: {
    events: EventStore;
    views: ViewStore;
    projector: Projector;
    log: Logger;
    editorial?: EditorialIndex;
  },
  options: RepairOptions = {},
): Promise<RepairReport> {
  const { events, views, projector, log } = parts;
  const viewVersions = new Map<string, number>();
  for await (const [id, version] of views.versions()) {
    // Snapshots and chain checks share the table under keys with a `#`, which no incident id has.
    if (!id.includes("#")) viewVersions.set(id, version);
  }
  const report: RepairReport = { incidents: 0, built: 0, caughtUp: 0, events: 0, failed: [] };
  let total: number | undefined;
  let done = 0;
  // Events of the views built from nothing, counted as each is written: progress shows them
  // while the scan is still going.
  let built = 0;
  const progressed = (n: number) => {
    done += n;
    const events = report.events + built;
    options.onProgress?.({ done, ...(total === undefined ? {} : { total }), events });
  };
  const failed = (incidentId: string, error: unknown) => {
    log.error("could not repair a view", { incidentId, error: String(error) });
    report.failed.push({ incidentId, error: String(error) });
  };
  const concurrency = options.concurrency ?? 8;
  const batches = new ViewBatches(views, {
    // Views built from nothing carry their links and attributions: the editorial index is
    // written before them, so a view that failed it is missing, and folded again by a rerun.
    beforeWrite: async (views) => {
      const { editorial } = parts;
      if (!editorial) return;
      await Promise.all(
        views.flatMap((view) => (view.editorial ? [editorial.record(view.incidentId, view.editorial)] : [])),
      );
    },
    written: (views) => {
      report.built += views.length;
      for (const view of views) built += view.version;
      progressed(views.length);
    },
    failed: (views, error) => {
      for (const view of views) failed(view.incidentId, error);
      progressed(views.length);
    },
  });

  let lagging: string[] = [];
  if (viewVersions.size === 0) {
    const segments = options.segments ?? 4;
    const scanned = await scanAndFold(events, batches, segments);
    await batches.close();
    report.incidents = scanned.incidents;
    lagging = scanned.again;
    total = done + lagging.length;
  } else {
    const heads = await events.incidentVersions();
    const missing: string[] = [];
    for (const [incidentId, head] of heads) {
      const view = viewVersions.get(incidentId);
      if (view === undefined) missing.push(incidentId);
      else if (view < head) lagging.push(incidentId);
    }
    report.incidents = heads.size;
    total = missing.length + lagging.length;
    await eachLimited(missing, concurrency, async (incidentId) => {
      try {
        const run = new FoldFromNothing(events, incidentId, batches);
        for await (const event of events.events(incidentId)) {
          const pending = run.push(event);
          if (pending) await pending;
        }
        await run.finish();
      } catch (error) {
        failed(incidentId, error);
        progressed(1);
      }
    });
    await batches.close();
  }

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
  report.events += built;
  log.info("view repair done", { ...report, failed: report.failed.length });
  return report;
}
