import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import type { Logger } from "../log.js";
import type { Item } from "../store/commit-item.js";
import { localStreamRecord } from "./stream-record.js";

type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const MAX_ATTEMPTS = 5;
const RETRY_MS = 50;

export interface ProjectionLanesOptions {
  handler: StreamHandler;
  log: Logger;
  tableName: string;
  /** Incidents projected at once; the rest wait their turn in arrival order. */
  concurrency?: number;
  /** How long a lane's first record waits for others, like the event source mapping's window. */
  batchingWindowMs?: number;
  /**
   * After each pass: how many records of this incident are handled since it was last idle, and
   * whether it is idle now (then the count starts again from 0). Reads wait on this.
   */
  onProgress?: (incidentId: string, handled: number, idle: boolean) => void;
}

/**
 * The local stand-in for DynamoDB Streams, one lane per incident: commits to an incident
 * whose projection is running wait and become ONE follow-up pass (its records carry their
 * commits in order, and the projector folds them without reading the store), and one busy incident never holds up the
 * others behind a batch. Records keep the exact shape Streams delivers and go to the same
 * handler the projector Lambda runs, with its partial-failure contract (failed records are
 * retried, then parked in the log as the on-failure queue would hold them).
 */
export class ProjectionLanes {
  private sequence = 0;
  private readonly pending = new Map<string, { record: DynamoDBRecord; attempts: number }[]>();
  private readonly running = new Set<string>();
  /** Incidents with pending records and no lane yet, oldest first. */
  private readonly waiting = new Set<string>();
  private readonly settleWaiters = new Map<string, (() => void)[]>();
  /** Records handled (or parked) per incident since its lane started. */
  private readonly handledCount = new Map<string, number>();
  private idleWaiters: (() => void)[] = [];
  private readonly concurrency: number;
  private readonly batchingWindowMs: number;

  constructor(private readonly options: ProjectionLanesOptions) {
    this.concurrency = options.concurrency ?? 8;
    this.batchingWindowMs = options.batchingWindowMs ?? 2;
  }

  publish(item: Item): void {
    const incidentId = item.incidentId?.S ?? "";
    const queue = this.pending.get(incidentId) ?? [];
    queue.push({ record: this.toRecord(item), attempts: 0 });
    this.pending.set(incidentId, queue);
    if (!this.running.has(incidentId)) this.waiting.add(incidentId);
    this.startLanes();
  }

  /** Resolves once every record published so far for this incident has been handled. */
  settled(incidentId: string): Promise<void> {
    if (!this.busy(incidentId)) return Promise.resolve();
    return new Promise((resolve) =>
      this.settleWaiters.set(incidentId, [...(this.settleWaiters.get(incidentId) ?? []), resolve]),
    );
  }

  /** Resolves once every published record has been handled (or parked). */
  idle(): Promise<void> {
    if (this.running.size === 0 && this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private busy(incidentId: string): boolean {
    return this.running.has(incidentId) || this.pending.has(incidentId);
  }

  private startLanes(): void {
    for (const incidentId of this.waiting) {
      if (this.running.size >= this.concurrency) return;
      this.waiting.delete(incidentId);
      this.running.add(incidentId);
      void this.lane(incidentId);
    }
  }

  private async lane(incidentId: string): Promise<void> {
    await sleep(this.batchingWindowMs);
    for (;;) {
      const batch = this.pending.get(incidentId) ?? [];
      if (batch.length === 0) break;
      this.pending.delete(incidentId);
      const failed = await this.handle(batch);
      const retry = batch.filter((b) => failed.has(b.record.dynamodb?.SequenceNumber ?? ""));
      for (const b of retry) b.attempts += 1;
      const again = retry.filter((b) => b.attempts < MAX_ATTEMPTS);
      for (const b of retry.filter((r) => r.attempts >= MAX_ATTEMPTS)) {
        this.options.log.error("stream record parked after retries", {
          eventID: b.record.eventID,
          keys: b.record.dynamodb?.Keys,
          sequence: b.record.dynamodb?.SequenceNumber,
        });
      }
      const handled = (this.handledCount.get(incidentId) ?? 0) + batch.length - again.length;
      this.handledCount.set(incidentId, handled);
      if (this.pending.has(incidentId) || again.length > 0)
        this.options.onProgress?.(incidentId, handled, false);
      if (again.length > 0) {
        // Retried records go first: they are older than whatever arrived meanwhile.
        this.pending.set(incidentId, [...again, ...(this.pending.get(incidentId) ?? [])]);
        await sleep(RETRY_MS);
      }
    }
    this.running.delete(incidentId);
    for (const resolve of this.settleWaiters.get(incidentId) ?? []) resolve();
    this.settleWaiters.delete(incidentId);
    this.options.onProgress?.(incidentId, this.handledCount.get(incidentId) ?? 0, true);
    this.handledCount.delete(incidentId);
    this.startLanes();
    if (this.running.size === 0 && this.waiting.size === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** The sequence numbers of the records that failed. */
  private async handle(batch: { record: DynamoDBRecord }[]): Promise<Set<string>> {
    try {
      const answer = await this.options.handler({ Records: batch.map((b) => b.record) });
      return new Set(answer.batchItemFailures.map((f) => f.itemIdentifier));
    } catch (error) {
      this.options.log.error("projector threw on a batch", { error: String(error), records: batch.length });
      return new Set(batch.map((b) => b.record.dynamodb?.SequenceNumber ?? ""));
    }
  }

  private toRecord(item: Item): DynamoDBRecord {
    this.sequence += 1;
    return localStreamRecord(item, this.sequence, this.options.tableName);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
