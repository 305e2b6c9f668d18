import { parseServerEventId } from "../../events/server-ids.js";
import type { AppendResult } from "./append-answers.js";
import type { AppendRequest } from "./append-path.js";
import type { ClaimTable, HeldClaim } from "./claims.js";
import type { CommitReader } from "./commit-reader.js";

/**
 * A client id claimed while its append waited for its turn, for the slot the appends queued
 * ahead of it leave it if they all land; `from`: the writer's clock before the claim was written.
 * `relied`: a commit was put on it, so it is never released.
 */
export interface EarlyClaim {
  held: HeldClaim;
  from: number;
  relied: boolean;
}

/** An append from the moment it is queued: `counted` while its events count as queued ahead. */
export interface Pending {
  request: AppendRequest;
  early: EarlyClaim | undefined;
  counted: boolean;
}

/**
 * The turns of the appends to each incident in this process: one at a time, in arrival order,
 * so writers here never race each other for a slot (the conditional put still decides races
 * with other processes, Lambdas). A writer waiting for its turn claims its id meanwhile, so that
 * its turn is only the commit put: the turns of many writers to one incident (several desk
 * users, an import's requests in flight) follow each other one store call apart, not two.
 */
export class AppendQueue {
  /** Per incident, the end of the last append queued. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Per incident, the events of the appends queued that have not ended yet. */
  private readonly queuedEvents = new Map<string, number>();
  /** The client ids of those appends, with how many carry each (a client's retry repeats one). */
  private readonly queuedIds = new Map<string, number>();

  constructor(
    private readonly claims: ClaimTable,
    private readonly reader: CommitReader,
    private readonly now: () => string,
  ) {}

  /** Runs `turn` for the request once every append queued ahead of it on its incident has ended. */
  enqueue(request: AppendRequest, turn: (pending: Pending) => Promise<AppendResult>): Promise<AppendResult> {
    const { incidentId } = request;
    const queued = this.queues.get(incidentId);
    const early = queued ? this.claimEarly(request) : Promise.resolve(undefined);
    early.catch(() => undefined); // awaited at the turn; until then its failure is not unheard
    const pending: Pending = { request, early: undefined, counted: true };
    this.queuedEvents.set(incidentId, (this.queuedEvents.get(incidentId) ?? 0) + request.envelopes.length);
    for (const id of clientIds(request)) this.queuedIds.set(id, (this.queuedIds.get(id) ?? 0) + 1);
    const result = (queued ?? Promise.resolve()).then(async () => {
      try {
        pending.early = await early;
      } catch (error) {
        this.ended(pending);
        throw error;
      }
      try {
        return await turn(pending);
      } finally {
        this.ended(pending);
        await this.release(pending);
      }
    });
    const done = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(incidentId, done);
    void done.then(() => {
      if (this.queues.get(incidentId) === done) this.queues.delete(incidentId);
    });
    return result;
  }

  /**
   * The append's events are no longer ahead of later ones in the queue: told once, at the
   * moment its commit is the cached head (so a prediction never counts them twice), or at its end.
   */
  ended(pending: Pending): void {
    if (!pending.counted) return;
    pending.counted = false;
    const { incidentId, envelopes } = pending.request;
    countDown(this.queuedEvents, incidentId, envelopes.length);
    for (const id of clientIds(pending.request)) countDown(this.queuedIds, id, 1);
  }

  /** Frees the early claim unless a commit was put on it (claims.ts says why that is safe). */
  async release(pending: Pending): Promise<void> {
    const early = pending.early;
    pending.early = undefined;
    if (early && !early.relied) await this.claims.release(early.held);
  }

  /**
   * Claims the client id of a one-event append for the slot after the appends queued ahead of
   * it, if this process knows the incident's head; the turn uses the claim if that is still its
   * slot, and releases it otherwise. A batch is claimed at its turn: it looks before it claims.
   */
  private async claimEarly(request: AppendRequest): Promise<EarlyClaim | undefined> {
    const { incidentId, envelopes, expectedVersion } = request;
    const eventId = envelopes.length === 1 ? envelopes[0]?.eventId : undefined;
    const head = this.reader.cachedHead(incidentId);
    // An append ahead with the same id claims it at its own turn: taking it first would make
    // that append wait on this one, which waits on it.
    if (!eventId || parseServerEventId(eventId) || !head || this.queuedIds.has(eventId)) return undefined;
    const slot = head.version + (this.queuedEvents.get(incidentId) ?? 0) + 1;
    if (expectedVersion !== undefined && expectedVersion + 1 !== slot) return undefined;
    const from = Date.parse(this.now());
    const held = this.claims.hold({ eventId, incidentId, slot });
    try {
      return (await this.claims.tryClaim(held)) ? { held, from, relied: false } : undefined;
    } catch (error) {
      // The put may have landed before its answer was lost: free it, or it would hold the id
      // at a slot this append will not write.
      await this.claims.release(held).catch(() => undefined);
      throw error;
    }
  }
}

const clientIds = (request: AppendRequest): string[] =>
  request.envelopes.flatMap((e) => (e.eventId ? [e.eventId] : []));

function countDown(counts: Map<string, number>, key: string, by: number): void {
  const left = (counts.get(key) ?? 0) - by;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
