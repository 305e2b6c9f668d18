import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import type { Logger } from "../logger.js";
import type { Item } from "../store/commit-item.js";
import { localStreamRecord } from "./stream-record.js";

type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const BATCH_SIZE = 100;
const MAX_ATTEMPTS = 5;

/**
 * dynalite has no streams. This stands in for them locally: each commit becomes a record in
 * the exact shape DynamoDB Streams delivers, handed in batches to the same handler the
 * projector Lambda runs, with the same partial-failure contract (failed records are retried,
 * then parked in the log as the on-failure queue would hold them).
 */
export class LocalStream {
  private queue: { record: DynamoDBRecord; attempts: number }[] = [];
  private sequence = 0;
  private running: Promise<void> | null = null;
  private readonly idleWaiters: (() => void)[] = [];
  /** Records not yet handled, per incident, and who waits for them. */
  private readonly unprojected = new Map<string, number>();
  private readonly projectionWaiters = new Map<string, (() => void)[]>();

  constructor(
    private readonly handler: StreamHandler,
    private readonly log: Logger,
    private readonly tableName: string,
    /**
     * How long the first record of a batch waits for others, like the event source mapping's
     * batching window: one projection then covers a burst of commits instead of one each.
     */
    private readonly batchingWindowMs = 5,
  ) {}

  publish(item: Item): void {
    const incidentId = item.incidentId?.S ?? "";
    this.unprojected.set(incidentId, (this.unprojected.get(incidentId) ?? 0) + 1);
    this.queue.push({ record: this.toRecord(item), attempts: 0 });
    this.running ??= this.drain();
  }

  /** Resolves once every record published so far for this incident has been handled. */
  projected(incidentId: string): Promise<void> {
    if (!this.unprojected.has(incidentId)) return Promise.resolve();
    return new Promise((resolve) =>
      this.projectionWaiters.set(incidentId, [...(this.projectionWaiters.get(incidentId) ?? []), resolve]),
    );
  }

  private handled(record: DynamoDBRecord): void {
    const incidentId = record.dynamodb?.Keys?.incidentId?.S ?? "";
    const left = (this.unprojected.get(incidentId) ?? 1) - 1;
    if (left > 0) {
      this.unprojected.set(incidentId, left);
      return;
    }
    this.unprojected.delete(incidentId);
    for (const resolve of this.projectionWaiters.get(incidentId) ?? []) resolve();
    this.projectionWaiters.delete(incidentId);
  }

  /** Resolves once every published record has been handled (or parked). */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private toRecord(item: Item): DynamoDBRecord {
    this.sequence += 1;
    return localStreamRecord(item, this.sequence, this.tableName);
  }

  private async drain(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.batchingWindowMs));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH_SIZE);
      let failed = new Set<string>();
      const retry: typeof batch = [];
      try {
        const answer = await this.handler({ Records: batch.map((b) => b.record) });
        failed = new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
      } catch (error) {
        this.log.error("projector threw on a batch", { error: String(error), records: batch.length });
        failed = new Set(batch.map((b) => b.record.dynamodb?.SequenceNumber ?? ""));
      }
      for (const b of batch) {
        if (!failed.has(b.record.dynamodb?.SequenceNumber ?? "")) {
          this.handled(b.record);
          continue;
        }
        b.attempts += 1;
        if (b.attempts < MAX_ATTEMPTS) retry.push(b);
        else {
          this.log.error("stream record parked after retries", {
            eventID: b.record.eventID,
            keys: b.record.dynamodb?.Keys,
            sequence: b.record.dynamodb?.SequenceNumber,
          });
          this.handled(b.record);
        }
      }
      this.queue.push(...retry);
      if (retry.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    this.running = null;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
