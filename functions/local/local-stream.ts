import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import type { Logger } from "../logger.js";
import type { Item } from "../store/commit-item.js";
import { localStreamRecord } from "./stream-record.js";

type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const BATCH_SIZE = 100;
const MAX_ATTEMPTS = 5;
/**
 * How long each batch gathers records before it is handed over, like the event source
 * mapping's batching window: one projection then covers a burst of commits instead of one each.
 */
const BATCHING_WINDOW_MS = 5;
const RETRY_PAUSE_MS = 50;

/** A read waiting until every record of its incident (all: null) through `through` is handled. */
interface Waiter {
  incidentId: string | null;
  through: number;
  resolve: () => void;
}

interface Queued {
  record: DynamoDBRecord;
  incidentId: string;
  sequence: number;
  attempts: number;
}

/**
 * dynalite has no streams. This stands in for them locally: each commit becomes a record in
 * the exact shape DynamoDB Streams delivers, handed in batches to the same handler the
 * projector Lambda runs, with the same partial-failure contract. As a shard does, it delivers
 * an incident's records in order, at least once: a failed record is retried before any later
 * record of its incident, and after its last attempt it is parked (logged, as the on-failure
 * queue would hold it).
 */
export class LocalStream {
  private queue: Queued[] = [];
  private sequence = 0;
  private running: Promise<void> | null = null;
  /** Sequence numbers published and not yet handled, per incident. */
  private readonly unhandled = new Map<string, Set<number>>();
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly handler: StreamHandler,
    private readonly log: Logger,
    private readonly tableName: string,
  ) {}

  publish(item: Item): void {
    const incidentId = item.incidentId?.S ?? "";
    this.sequence += 1;
    const sequence = this.sequence;
    const pending = this.unhandled.get(incidentId) ?? new Set<number>();
    pending.add(sequence);
    this.unhandled.set(incidentId, pending);
    this.queue.push({
      record: localStreamRecord(item, sequence, this.tableName),
      incidentId,
      sequence,
      attempts: 0,
    });
    this.running ??= this.drain();
  }

  /**
   * Resolves once every record of this incident published so far has been handled (or
   * parked). Records published later are not waited for: a read never waits on writes after it.
   */
  projected(incidentId: string): Promise<void> {
    return this.waitFor(incidentId, this.sequence);
  }

  /** Resolves once every record published so far has been handled (or parked). */
  idle(): Promise<void> {
    return this.waitFor(null, this.sequence);
  }

  private waitFor(incidentId: string | null, through: number): Promise<void> {
    if (this.handledThrough(incidentId, through)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ incidentId, through, resolve }));
  }

  private handledThrough(incidentId: string | null, through: number): boolean {
    const sets = incidentId === null ? [...this.unhandled.values()] : [this.unhandled.get(incidentId)];
    for (const set of sets) for (const sequence of set ?? []) if (sequence <= through) return false;
    return true;
  }

  private handled(entry: Queued): void {
    const pending = this.unhandled.get(entry.incidentId);
    pending?.delete(entry.sequence);
    if (pending?.size === 0) this.unhandled.delete(entry.incidentId);
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i] as Waiter;
      if (!this.handledThrough(waiter.incidentId, waiter.through)) continue;
      this.waiters.splice(i, 1);
      waiter.resolve();
    }
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      await sleep(BATCHING_WINDOW_MS);
      const batch = this.queue.splice(0, BATCH_SIZE);
      let failed: Set<string>;
      try {
        const answer = await this.handler({ Records: batch.map((b) => b.record) });
        failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
      } catch (error) {
        this.log.error("projector threw on a batch", { error: String(error), records: batch.length });
        failed = new Set(batch.map((b) => b.record.dynamodb?.SequenceNumber ?? ""));
      }
      // From an incident's first failed record on, its records go again, in order, before the rest.
      const stalled = new Set<string>();
      const retry: Queued[] = [];
      for (const entry of batch) {
        const failedHere = failed.has(entry.record.dynamodb?.SequenceNumber ?? "");
        if (!failedHere && !stalled.has(entry.incidentId)) {
          this.handled(entry);
          continue;
        }
        if (failedHere) entry.attempts += 1;
        if (failedHere && entry.attempts >= MAX_ATTEMPTS) {
          this.log.error("stream record parked after retries", {
            eventID: entry.record.eventID,
            keys: entry.record.dynamodb?.Keys,
            sequence: entry.record.dynamodb?.SequenceNumber,
          });
          this.handled(entry);
          continue;
        }
        stalled.add(entry.incidentId);
        retry.push(entry);
      }
      this.queue.unshift(...retry);
      if (retry.length > 0) await sleep(RETRY_PAUSE_MS);
    }
    this.running = null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
