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
  /**
   * How long a record waits for others of its incident before a pass (like the event source
   * mapping's batching window), unless a read is waiting for it (`hurry`). A pass writes the
   * view once whatever it folds, so a hot incident's commits share one write.
   */
  batchingWindowMs?: number;
  /**
   * After each pass: how many records of this incident are handled since it was last idle, and
   * whether it is idle now (then the count starts again from 0). Reads wait on this.
   */
  onProgress?: (incidentId: string, handled: number, idle: boolean) => void;
}

/**
 * The local stand-in for DynamoDB Streams, one lane per incident: a commit waits a window for
 * others of its incident (out of the lanes: a waiting incident holds no slot), and commits that
 * arrive while its pass runs wait and become ONE follow-up pass (its records carry their commits
 * in order, and the projector folds them without reading the store); one busy incident never
 * holds up the others behind a batch. A read that waits for an incident cuts its window short.
 * Records keep the exact shape Streams delivers and go to the same handler the projector Lambda
 * runs, with its partial-failure contract (failed records are retried, then parked in the log
 * as the on-failure queue would hold them).
 */
export class ProjectionLanes {
  private sequence = 0;
  private readonly pending = new Map<string, { record: DynamoDBRecord; attempts: number }[]>();
  private readonly running = new Set<string>();
  /** Incidents whose window is open: their records wait for others (timer to its end). */
  private readonly lingering = new Map<string, ReturnType<typeof setTimeout>>();
  /** Incidents with pending records whose window is over, waiting for a slot, oldest first. */
  private readonly waiting = new Set<string>();
  /** Of those, the ones a read waits for: they take the next free slots, before the rest. */
  private readonly urgent = new Set<string>();
  /** Incidents a read waits for while their pass runs: what arrived meanwhile skips the window. */
  private readonly hurried = new Set<string>();
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
    if (!this.running.has(incidentId) && !this.waiting.has(incidentId) && !this.lingering.has(incidentId))
      this.linger(incidentId, this.batchingWindowMs);
  }

  /** Resolves once every record published so far for this incident has been handled. */
  settled(incidentId: string): Promise<void> {
    if (!this.busy(incidentId)) return Promise.resolve();
    const settledNow = new Promise<void>((resolve) =>
      this.settleWaiters.set(incidentId, [...(this.settleWaiters.get(incidentId) ?? []), resolve]),
    );
    this.hurry(incidentId);
    return settledNow;
  }

  /** A read waits for this incident: its records go to a lane now rather than at their window's end. */
  hurry(incidentId: string): void {
    if (this.running.has(incidentId)) this.hurried.add(incidentId);
    else if (this.lingering.has(incidentId) || this.waiting.has(incidentId)) this.ready(incidentId, true);
  }

  /** Resolves once every published record has been handled (or parked). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    const idleNow = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    for (const incidentId of [...this.lingering.keys()]) this.ready(incidentId);
    return idleNow;
  }

  private isIdle(): boolean {
    return this.running.size === 0 && this.waiting.size === 0 && this.lingering.size === 0;
  }

  private busy(incidentId: string): boolean {
    return this.running.has(incidentId) || this.pending.has(incidentId);
  }

  private linger(incidentId: string, ms: number): void {
    this.lingering.set(
      incidentId,
      setTimeout(() => this.ready(incidentId), ms),
    );
  }

  private ready(incidentId: string, urgent = false): void {
    clearTimeout(this.lingering.get(incidentId));
    this.lingering.delete(incidentId);
    this.waiting.add(incidentId);
    if (urgent) this.urgent.add(incidentId);
    this.startLanes();
  }

  private startLanes(): void {
    for (const incidentId of [...this.urgent, ...this.waiting]) {
      if (this.running.size >= this.concurrency) return;
      if (this.running.has(incidentId)) continue;
      this.urgent.delete(incidentId);
      this.waiting.delete(incidentId);
      this.running.add(incidentId);
      void this.lane(incidentId);
    }
  }

  /** One pass over the incident's pending records; what arrives meanwhile waits a window again. */
  private async lane(incidentId: string): Promise<void> {
    const batch = this.pending.get(incidentId) ?? [];
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
    // Retried records go first: they are older than whatever arrived meanwhile.
    if (again.length > 0) this.pending.set(incidentId, [...again, ...(this.pending.get(incidentId) ?? [])]);
    this.running.delete(incidentId);
    const hurried = this.hurried.delete(incidentId) || this.settleWaiters.has(incidentId);
    if (this.pending.has(incidentId)) {
      this.options.onProgress?.(incidentId, handled, false);
      if (again.length > 0) this.linger(incidentId, RETRY_MS);
      else if (hurried) this.ready(incidentId, true);
      else this.linger(incidentId, this.batchingWindowMs);
    } else {
      for (const resolve of this.settleWaiters.get(incidentId) ?? []) resolve();
      this.settleWaiters.delete(incidentId);
      this.options.onProgress?.(incidentId, handled, true);
      this.handledCount.delete(incidentId);
    }
    this.startLanes();
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
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
