import type { Logger } from "../log.js";
import { CheckpointPublisher } from "./checkpoints.js";
import type { LogStore } from "./log-store.js";
import { LogTiles } from "./log-tiles.js";
import { Sequencer, type SequencerEvents } from "./sequencer.js";
import type { LogSigner } from "./signer.js";
import { WitnessClient, type WitnessConfig } from "./witness-client.js";

export interface LogServiceOptions {
  store: LogStore;
  events: SequencerEvents;
  allIncidents?: () => Promise<Iterable<string>>;
  signer: LogSigner;
  log: Logger;
  witnesses?: readonly WitnessConfig[];
  /** How long the first commit of a burst waits for others before a pass (default 5 ms). */
  batchingWindowMs?: number;
}

/** The sequencer and the checkpoint publisher, wired together: one pass sequences, then signs. */
export function createLogWriter(options: Omit<LogServiceOptions, "batchingWindowMs">) {
  const tiles = new LogTiles(options.store);
  const sequencer = new Sequencer({
    store: options.store,
    tiles,
    events: options.events,
    log: options.log,
    ...(options.allIncidents ? { allIncidents: options.allIncidents } : {}),
  });
  const witnesses =
    options.witnesses && options.witnesses.length > 0
      ? new WitnessClient(options.witnesses, options.log)
      : undefined;
  const publisher = new CheckpointPublisher({
    store: options.store,
    tiles,
    signer: options.signer,
    log: options.log,
    ...(witnesses ? { witnesses } : {}),
  });
  /** One sequencer pass over these incidents (all of them: undefined), then a checkpoint. */
  const pass = async (incidentIds?: Iterable<string>) => {
    const result = incidentIds ? await sequencer.sequence(incidentIds) : await sequencer.sequenceAll();
    const checkpoint = await publisher.publish(result.size);
    return { ...result, checkpoint };
  };
  return { tiles, sequencer, publisher, pass };
}

export type LogWriter = ReturnType<typeof createLogWriter>;

/**
 * Locally there are no streams: each commit names its incident here, and one pass handles all
 * the incidents named while the previous pass ran (so sequencing keeps pace with many writers:
 * its cost is per pass, not per commit). A failed pass is retried with backoff; the incidents
 * it held stay pending.
 */
export class LocalLogFeed {
  private readonly pending = new Set<string>();
  private running: Promise<void> | null = null;
  private readonly idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly writer: LogWriter,
    private readonly log: Logger,
    private readonly batchingWindowMs = 5,
  ) {}

  notify(incidentId: string): void {
    if (this.closed) return;
    this.pending.add(incidentId);
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
  }

  private async drain(): Promise<void> {
    await sleep(this.batchingWindowMs);
    let failures = 0;
    while (this.pending.size > 0) {
      const ids = [...this.pending];
      this.pending.clear();
      try {
        await this.writer.pass(ids);
        failures = 0;
      } catch (error) {
        failures += 1;
        this.log.error("log sequencer pass failed; will retry", {
          error: String(error),
          incidents: ids.length,
        });
        if (this.closed) break;
        for (const id of ids) this.pending.add(id);
        await sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
      }
    }
    this.running = null;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
