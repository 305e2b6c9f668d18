import { randomUUID } from "node:crypto";
import { type DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import {
  categoriesOf,
  checkAppend,
  checkCategories,
  checkDates,
  needsTargets,
  type RuleBreach,
  targetOf,
} from "../../events/append-rules.js";
import { setOwn } from "../../events/own-keys.js";
import type { Envelope, EventType } from "../../events/schemas.js";
import { serverEventId } from "../../events/server-ids.js";
import {
  type ChainHead,
  contentFingerprint,
  type StoredEvent,
  sealEvents,
} from "../../events/stored-event.js";
import { StoreBusyError, VersionConflictError } from "../errors.js";
import type { CategoryCount } from "../incident-categories.js";
import {
  type AppendResult,
  breachError,
  type IdOutcome,
  type Replay,
  replayOf,
  throwConflicts,
} from "./append-answers.js";
import { AppendQueue, type Pending } from "./append-queue.js";
import { ClaimProtocol } from "./claim-protocol.js";
import { type ClaimTable, WRITER_DEADLINE_MS } from "./claims.js";
import { commitToItem, type Item } from "./commit-item.js";
import type { CommitMemo, CommitReader } from "./commit-reader.js";
import { isConditionFailed } from "./dynamo-idioms.js";

export interface AppendRequest {
  incidentId: string;
  envelopes: readonly Envelope[];
  recordedBy: string;
  /** If-Match: the version the incident must be at (0: it must not exist). */
  expectedVersion?: number;
  /** Whether the client sent `{ events: [...] }`: error paths then name `events[i]`. */
  batched: boolean;
  /**
   * The writer's clock (ms) before it wrote what the commit relies on besides its claims (the
   * sealing append's disclosures, functions/people): the commit is put only within
   * WRITER_DEADLINE_MS of it too, so an orphan older than that is one for good.
   */
  deadlineFrom?: number;
}

export interface AppendPathOptions {
  db: DynamoDBClient;
  table: string;
  claims: ClaimTable;
  reader: CommitReader;
  now: () => string;
  maxAttempts: number;
  /** Told of every commit that may have been stored (a stream would see it), replays included. */
  onCommit: ((item: Item) => void) | undefined;
  /** The incident's casualty categories, for the cap on them (append-rules.ts). */
  categories?: CategoryCount | undefined;
}

/** One attempt's end: an answer, or a lost race to retry from a fresh head. */
type Attempt = { done: AppendResult } | { retry: true };

/**
 * The write path: claims, the commit put, and replays. The protocol rests on these invariants
 * (stated once, here):
 *
 * 1. A head is always a commit's end, and a commit is one item at sort key = its first version
 *    (the *slot*), put only if absent. So versions are gapless and two writers never share one:
 *    a stale writer collides on an occupied slot.
 * 2. Commits are immutable: nothing updates or deletes one. So what a slot holds, once read,
 *    stays true — an event absent from a filled slot can never appear there.
 * 3. A client eventId is stored only by the holder of its claim, at the claim's slot; a claim
 *    leaves a slot only once that slot holds a commit without its event (by 2, the event can no
 *    longer land there), when it is abandoned, or when the writer that wrote it, and put no
 *    commit on it, releases it (see claims.ts). So an id is stored at most once.
 * 4. A writer recognises its own commit by a random token outside the events, so a put
 *    delivered twice (the SDK retrying a lost answer) is one commit, answered 201.
 */
export class AppendPath {
  private readonly ids: ClaimProtocol;
  private readonly queue: AppendQueue;

  constructor(private readonly o: AppendPathOptions) {
    this.ids = new ClaimProtocol(o.claims, o.reader, o.now);
    this.queue = new AppendQueue(o.claims, o.reader, o.now);
  }

  /**
   * Appends 1–25 events as one commit. Without `expectedVersion` a lost race is retried here
   * (fresh head, jittered backoff), so concurrent writers never see a 409 for it.
   */
  append(request: AppendRequest): Promise<AppendResult> {
    return this.queue.enqueue(request, (pending) => this.appendNow(pending));
  }

  private async appendNow(pending: Pending): Promise<AppendResult> {
    const { request } = pending;
    const { incidentId, expectedVersion } = request;
    const fingerprints = fingerprintsOf(request);

    const cached = this.o.reader.cachedHead(incidentId);
    let head =
      cached && (expectedVersion === undefined || cached.version === expectedVersion)
        ? cached
        : await this.o.reader.readHead(incidentId);
    for (let attempt = 0; attempt < this.o.maxAttempts; attempt++) {
      // An early claim serves one attempt, at the slot it names.
      const early = pending.early;
      if (early && (early.relied || early.held.slot !== head.version + 1)) await this.queue.release(pending);
      const step = await this.attempt(pending, fingerprints, head);
      if ("done" in step) return step.done;
      await backoff(attempt);
      head = await this.o.reader.readHead(incidentId);
    }
    throw new StoreBusyError(
      `could not append to ${incidentId} after ${this.o.maxAttempts} attempts: too many concurrent writers; nothing was stored`,
    );
  }

  private async attempt(
    pending: Pending,
    fingerprints: Map<string, string>,
    head: ChainHead,
  ): Promise<Attempt> {
    const { request, early } = pending;
    const { incidentId, envelopes, expectedVersion } = request;
    if (expectedVersion !== undefined && head.version !== expectedVersion) {
      return {
        done: await this.replayOrThrow(
          request,
          fingerprints,
          new VersionConflictError(expectedVersion, head.version),
        ),
      };
    }
    const known = needsTargets(envelopes) ? await this.targetTypes(incidentId, envelopes) : undefined;
    const breach =
      checkAppend(head.version, envelopes, request.batched, known) ??
      checkDates(envelopes, request.batched, this.o.now()) ??
      (await this.categoryBreach(incidentId, head.version, envelopes, request.batched));
    if (breach) {
      return {
        done: await this.replayOrThrow(request, fingerprints, breachError(breach), { idsFirst: true }),
      };
    }

    const slot = head.version + 1;
    // Counted before any claim is written: the deadline runs from no later than each claim's time.
    const claimsFrom = early?.from ?? Date.parse(this.o.now());
    if (fingerprints.size > 0 && !early) {
      const outcome = await this.ids.secure(incidentId, slot, envelopes, fingerprints);
      // Another writer's claim on this incident waits for its commit: give it the time to land.
      if (outcome === "stale") return { retry: true };
      if (outcome !== "held") return { done: this.replayed(outcome) };
    }

    const events = sealEvents(head, envelopes, {
      incidentId,
      recordedBy: request.recordedBy,
      now: this.o.now(),
      newEventId: (version) => serverEventId(incidentId, version),
    });
    const last = events[events.length - 1] as StoredEvent;
    const item = commitToItem({
      incidentId,
      version: slot,
      lastVersion: last.version,
      events,
      token: randomUUID(),
    });
    // What the commit relies on was written from these times on: our claims, which may count as
    // abandoned after the deadline and be moved (claims.ts), and what the caller wrote first
    // (the sealing append's disclosures, functions/people, swept as orphans after it). Never put after that.
    const reliedFrom = Math.min(
      fingerprints.size > 0 ? claimsFrom : Number.POSITIVE_INFINITY,
      request.deadlineFrom ?? Number.POSITIVE_INFINITY,
    );
    if (Date.parse(this.o.now()) - reliedFrom > WRITER_DEADLINE_MS) {
      throw new StoreBusyError(
        `the append to ${incidentId} took too long to be stored safely; nothing was stored`,
      );
    }
    if (early) early.relied = true;
    if (await this.putCommit(item)) {
      this.o.reader.rememberHead(incidentId, {
        version: last.version,
        hash: last.hash,
        recordedAt: last.recordedAt,
      });
      this.queue.ended(pending);
      this.o.categories?.committed(incidentId, head.version, last.version, envelopes);
      this.o.onCommit?.(item);
      return { done: { created: true, incidentId, version: last.version, events: events.map(brief) } };
    }
    this.o.reader.forgetHead(incidentId);
    if (expectedVersion === undefined) return { retry: true };
    const current = (await this.o.reader.readHead(incidentId)).version;
    return {
      done: await this.replayOrThrow(
        request,
        fingerprints,
        new VersionConflictError(expectedVersion, current),
      ),
    };
  }

  /** A report that would take the incident past its cap on casualty categories (append-rules.ts). */
  private async categoryBreach(
    incidentId: string,
    version: number,
    envelopes: readonly Envelope[],
    batched: boolean,
  ): Promise<RuleBreach | null> {
    if (!this.o.categories || categoriesOf(envelopes).length === 0) return null;
    return checkCategories(await this.o.categories.at(incidentId, version), envelopes, batched);
  }

  /** true: the commit is stored (by this put, or by an earlier delivery of it); false: the slot was taken. */
  private async putCommit(item: Item): Promise<boolean> {
    try {
      await this.o.db.send(
        new PutItemCommand({
          TableName: this.o.table,
          Item: item,
          ConditionExpression: "attribute_not_exists(version)",
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailed(error)) {
        // The put may have landed before its answer was lost: let the projector and the log look.
        // Only its key: whether it landed is the store's to say, so they read it back rather
        // than trust this copy of a commit that may never have been stored.
        this.o.onCommit?.({ incidentId: item.incidentId, version: item.version } as Item);
        throw error;
      }
      // The SDK retries a put whose answer was lost; the retry then meets our own commit.
      const slot = await this.o.reader.commitAt(item.incidentId?.S ?? "", Number(item.version?.N));
      return slot?.token === item.token?.S;
    }
  }

  private async replayOrThrow(
    request: AppendRequest,
    fingerprints: Map<string, string>,
    error: Error,
    { idsFirst = false } = {},
  ): Promise<AppendResult> {
    if (fingerprints.size === 0) throw error;
    const { incidentId, envelopes } = request;
    const { ids, outcomes } = await this.idOutcomes(request, fingerprints);
    const replay = replayOf(incidentId, envelopes, ids, outcomes);
    if (replay) return this.replayed(replay);
    if (idsFirst) {
      // An id stored with other content says more than the rule its event breaks: it is not the
      // event stored under that id (an import rerun with other options, an id reused by mistake).
      const differing = outcomes.flatMap((o, i) => (o.kind === "stored" && !o.same ? [i] : []));
      throwConflicts(
        incidentId,
        envelopes,
        differing.map((i) => ids[i] as string),
        differing.map((i) => outcomes[i] as IdOutcome),
      );
    }
    throw error;
  }

  /**
   * The first answer to this very append, if it is a faithful repeat of one stored (every event
   * named by its client eventId, with the same content), else null: a check that refuses an
   * append because of what the incident has become since must not refuse its retry.
   */
  async replay(request: AppendRequest): Promise<AppendResult | null> {
    const replay = await this.replayFound(request, fingerprintsOf(request));
    return replay ? this.replayed(replay) : null;
  }

  private async replayFound(
    request: AppendRequest,
    fingerprints: Map<string, string>,
  ): Promise<Replay | null> {
    if (fingerprints.size === 0) return null;
    const { ids, outcomes } = await this.idOutcomes(request, fingerprints);
    return replayOf(request.incidentId, request.envelopes, ids, outcomes);
  }

  /** What each client id of the request names in the archive now. */
  private async idOutcomes(
    request: AppendRequest,
    fingerprints: Map<string, string>,
  ): Promise<{ ids: string[]; outcomes: IdOutcome[] }> {
    const ids = [...fingerprints.keys()];
    const memo: CommitMemo = new Map();
    const outcomes = await Promise.all(
      ids.map((id) => this.ids.lookup(id, request.incidentId, fingerprints, memo)),
    );
    return { ids, outcomes };
  }

  /** A replay answers 200; its commits go to the projector too, in case their own notice was lost. */
  private replayed(replay: Replay): AppendResult {
    for (const commit of replay.commits) this.o.onCommit?.(commitToItem(commit));
    return replay.result;
  }

  /**
   * The types of the events this append's targets name, each found the way a replay finds it
   * (`findEvent`), so checking a retraction or an assessment costs a read per target, not a
   * read of the whole incident.
   */
  private async targetTypes(
    incidentId: string,
    envelopes: readonly Envelope[],
  ): Promise<Record<string, EventType>> {
    const targets = new Set(envelopes.flatMap((e) => targetOf(e) ?? []));
    const memo: CommitMemo = new Map();
    const types: Record<string, EventType> = {};
    await Promise.all(
      [...targets].map(async (eventId) => {
        const event = await this.o.reader.findEvent(incidentId, eventId, memo);
        if (event) setOwn(types, eventId, event.type);
      }),
    );
    return types;
  }
}

const brief = ({ eventId, version, hash }: StoredEvent) => ({ eventId, version, hash });

/** Full jitter, capped low: writers to one incident are CPU-bound, not waiting on a queue. */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(50, 2 ** Math.min(attempt, 6));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}

/** Each client eventId of an append, with the fingerprint of the content it names. */
function fingerprintsOf(request: AppendRequest): Map<string, string> {
  const fingerprints = new Map<string, string>();
  for (const e of request.envelopes)
    if (e.eventId) fingerprints.set(e.eventId, contentFingerprint(request.incidentId, e));
  return fingerprints;
}
