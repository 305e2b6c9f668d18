import type { LogWriter } from "../log/log-service.js";
import type { Logger } from "../logger.js";
import { CarriedCommits } from "../store/carried-commits.js";
import type { Item } from "../store/commit-item.js";

/**
 * Locally there are no streams: each commit names its incident here, and one pass handles all
 * the incidents named while the previous pass ran (so sequencing keeps pace with many writers:
 * its cost is per pass, not per commit). A failed pass is retried with backoff; the incidents
 * it held stay pending. A commit named with its item hands the pass that item, so the
 * sequencer need not read it back (sequencer.ts).
 */
export class LocalSequencing {
  /** Incidents named since the last pass began, with the commits they were named with. */
  private pending = new CarriedCommits();
  private running: Promise<void> | null = null;
  private readonly idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly writer: LogWriter,
    private readonly log: Logger,
    private readonly batchingWindowMs = 5,
  ) {}

  /** A commit of this incident is stored (`item`: the stored item, if at hand). */
  notify(incidentId: string, item?: Item): void {
    if (this.closed) return;
    this.pending.add(incidentId, item);
    this.running ??= this.drain();
  }

  /** Resolves when every incident named so far has been sequenced and signed. */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
    // Witness requests in flight end within their timeout; their answers still get stored.
    await this.writer.witnessed();
    // A time-stamp request in flight is abandoned: the next start asks again.
    await this.writer.timestamps?.close();
  }

  /**
   * Sequences what was named, pass after pass, while the checkpoint over the previous pass is
   * signed (so signing never holds sequencing back, and a burst is published as it goes); ends
   * once nothing is pending and the last checkpoint is stored.
   */
  private async drain(): Promise<void> {
    await sleep(this.batchingWindowMs);
    let lastPass = performance.now();
    let failures = 0;
    let signing: { size: number; checkpoint: Promise<unknown> } | null = null;
    let stopped = false;
    const backoff = () => sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
    // Commits named while the settled size is written start another round of passes.
    while (!stopped && this.pending.incidents.length > 0) {
      while (!stopped && (this.pending.incidents.length > 0 || signing)) {
        if (this.pending.incidents.length > 0) {
          // While commits stream in, passes start at least a window apart: a pass's writes (its
          // run, the runs' records, a checkpoint) are per pass, not per commit, and each one
          // spared leaves the store to the appends.
          const wait = lastPass + this.batchingWindowMs - performance.now();
          if (wait > 0 && !this.closed) await sleep(wait);
          lastPass = performance.now();
          const named = this.pending;
          const ids = named.incidents;
          this.pending = new CarriedCommits();
          try {
            const result = await this.writer.sequence(ids, named.usable());
            // Observed here so that a failure waits for the check below, not an unhandled rejection.
            result.checkpoint.catch(() => undefined);
            signing = { size: result.size, checkpoint: result.checkpoint };
            failures = 0;
          } catch (error) {
            failures += 1;
            this.log.error("log sequencer pass failed; will retry", {
              error: String(error),
              incidents: ids.length,
            });
            stopped = this.closed;
            // Retried from the store: what a failed pass was handed may be partly in the log.
            for (const id of ids) this.pending.add(id);
            if (!stopped) await backoff();
          }
          continue;
        }
        const current = signing as { size: number; checkpoint: Promise<unknown> };
        try {
          await current.checkpoint;
          signing = null;
        } catch (error) {
          failures += 1;
          this.log.error("log checkpoint failed; will retry", { error: String(error), size: current.size });
          stopped = this.closed;
          if (stopped) break;
          await backoff();
          const checkpoint = this.writer.publisher.publish(current.size);
          checkpoint.catch(() => undefined);
          signing = { size: current.size, checkpoint };
        }
      }
      // The burst is over: its settled size is recorded once (see Sequencer.flushSettledSize).
      await this.writer.sequencer.flushSettledSize().catch((error) => {
        this.log.error("log settled size not recorded; a later pass settles again", { error: String(error) });
      });
    }
    this.running = null;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
