import { randomUUID } from "node:crypto";
import { type DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import {
  categoriesOf,
  checkAppend,
  checkCategories,
  needsTargets,
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
import { type AppendResult, breachError, type Replay, replayOf } from "./append-answers.js";
import { PendingAppend, takeGroup } from "./append-lane.js";
import { ClaimProtocol } from "./claim-protocol.js";
import { type ClaimTable, WRITER_DEADLINE_MS } from "./claims.js";
import { commitToItem, type Item } from "./commit-item.js";
import type { CommitMemo, CommitReader } from "./commit-reader.js";
import { isConditionFailed } from "./dynamo-client.js";

export interface AppendRequest {
  incidentId: string;
  envelopes: readonly Envelope[];
  recordedBy: string;
  /** If-Match: the version the incident must be at (0: it must not exist). */
  expectedVersion?: number;
  /** Whether the client sent `{ events: [...] }`: error paths then name `events[i]`. */
  batched: boolean;
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
  /** The incident's casualty categories at a version, for the cap on them (append-rules.ts). */
  categoriesAt?: CategoriesAt | undefined;
}

export type CategoriesAt = (incidentId: string, version: number) => Promise<ReadonlySet<string>>;

/**
 * One attempt's end for a group: every member answered (or set aside for the next group), or a
 * retry of those still waiting — from a fresh head after a lost race, or from the same head
 * when a member left the group (its answer was a refusal or a replay) and the others move up.
 */
type Attempt = "done" | { retry: "now" | "after-backoff" | "same-head" };

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
 *    longer land there), or when it is abandoned (see claims.ts). So an id is stored at most once.
 * 4. A writer recognises its own commit by a random token outside the events, so a put
 *    delivered twice (the SDK retrying a lost answer) is one commit, answered 201.
 *
 * **Group commit.** Appends to one incident take turns in a lane (per process). While one
 * commit is in flight, the appends that arrive wait; when the lane is free, those waiting
 * become ONE commit item (`takeGroup`: at most MAX_BATCH events in all), each append a slice
 * of it, recorded in the item (`appends`: each slice's first version). Why that keeps every
 * guarantee:
 *
 * - Atomic, gapless, never doubled: the group is still one item put only if its slot is
 *   absent (1), so all its appends land together or none does; each append is a contiguous
 *   slice of it, so each is still whole or not at all. A lost race retries the whole group.
 * - Idempotent: every member's client ids are claimed for the group's slot — the item's sort
 *   key — before the put, exactly as a lone append claims its own (3); no id appears in two
 *   members (`takeGroup`), so no two members can both hold one claim. A replay finds an id
 *   through its claim as before, and a mixed batch replays only when its ids sit in its own
 *   slice and that slice matches the request in position and content (append-answers.ts).
 * - Each member is judged as if it ran alone right after the members before it in the group:
 *   the rules (`checkAppend`) see the version and the event ids those members leave. That
 *   state becomes real only if they are all stored, so a member whose rules fail *after* others
 *   were admitted is not refused on it: it is set aside for the next group, where it is judged
 *   first, against stored commits only. A member refused for its ids (a conflict) or answered
 *   by a replay leaves the group; the others are judged again from the same head, so one
 *   refusal never sinks the rest and never leaves them judged against a state that won't be.
 * - If-Match appends always go alone (`takeGroup`), so "only if the incident is at N" is
 *   checked as before.
 * - The answer's `version` is the commit's last version — the incident's new head, the only
 *   version a later If-Match can name — and `events` is the member's own slice.
 */
export class AppendPath {
  private readonly lanes = new Map<string, PendingAppend[]>();
  private readonly ids: ClaimProtocol;

  constructor(private readonly o: AppendPathOptions) {
    this.ids = new ClaimProtocol(o.claims, o.reader, o.now);
  }

  /**
   * Appends 1–25 events, whole or not at all, possibly in one commit with other appends to the
   * same incident waiting in this process. Without `expectedVersion` a lost race is retried
   * here (fresh head, jittered backoff), so concurrent writers never see a 409 for it.
   */
  append(request: AppendRequest): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      const pending = new PendingAppend(
        request,
        (_id, i) => contentFingerprint(request.incidentId, request.envelopes[i] as Envelope),
        { resolve, reject },
      );
      // Writers in this process take turns per incident, so they never race each other for a
      // slot; the conditional put still settles races with other processes (Lambdas).
      const lane = this.lanes.get(request.incidentId);
      if (lane) lane.push(pending);
      else {
        const fresh = [pending];
        this.lanes.set(request.incidentId, fresh);
        void this.drain(request.incidentId, fresh);
      }
    });
  }

  /** Commits the lane's appends a group at a time until none waits. */
  private async drain(incidentId: string, lane: PendingAppend[]): Promise<void> {
    while (lane.length > 0) {
      const setAside = await this.appendGroup(incidentId, takeGroup(lane));
      lane.unshift(...setAside);
    }
    this.lanes.delete(incidentId);
  }

  /** Answers every member of the group, but those it returns: set aside for the next group. */
  private async appendGroup(incidentId: string, group: PendingAppend[]): Promise<PendingAppend[]> {
    const setAside: PendingAppend[] = [];
    const waiting = () => group.filter((m) => !m.settled && !setAside.includes(m));
    try {
      const expectedVersion = (group[0] as PendingAppend).request.expectedVersion;
      const cached = this.o.reader.cachedHead(incidentId);
      let head =
        cached && (expectedVersion === undefined || cached.version === expectedVersion)
          ? cached
          : await this.o.reader.readHead(incidentId);
      for (let attempt = 0; attempt < this.o.maxAttempts; attempt++) {
        const step = await this.attempt(incidentId, waiting(), head, setAside);
        if (step === "done") return setAside;
        if (step.retry === "same-head") continue;
        if (step.retry === "after-backoff") await backoff(attempt);
        head = await this.o.reader.readHead(incidentId);
      }
      throw new StoreBusyError(
        `could not append to ${incidentId} after ${this.o.maxAttempts} attempts: too many concurrent writers; nothing was stored`,
      );
    } catch (error) {
      for (const m of waiting()) m.reject(error);
      return setAside;
    }
  }

  private async attempt(
    incidentId: string,
    members: PendingAppend[],
    head: ChainHead,
    setAside: PendingAppend[],
  ): Promise<Attempt> {
    // If-Match appends go alone (takeGroup).
    const expectedVersion = members.length === 1 ? members[0]?.request.expectedVersion : undefined;
    if (expectedVersion !== undefined && head.version !== expectedVersion) {
      await this.refuse(members[0] as PendingAppend, new VersionConflictError(expectedVersion, head.version));
      return "done";
    }

    const admitted = await this.admit(incidentId, members, head, setAside);
    if (admitted.length === 0) return "done";

    const slot = head.version + 1;
    // Counted before any claim is written: the deadline runs from no later than each claim's time.
    const claimsFrom = Date.parse(this.o.now());
    const secured = await Promise.allSettled(
      admitted.map((m) =>
        m.fingerprints.size > 0
          ? this.ids.secure(incidentId, slot, m.request.envelopes, m.fingerprints)
          : ("held" as const),
      ),
    );
    let stale = false;
    let left = false;
    secured.forEach((outcome, i) => {
      const m = admitted[i] as PendingAppend;
      if (outcome.status === "rejected") m.reject(outcome.reason);
      else if (outcome.value === "stale") stale = true;
      else if (outcome.value !== "held") m.resolve(this.replayed(outcome.value));
      left ||= m.settled;
    });
    if (stale) return { retry: "now" };
    if (left) return { retry: "same-head" };

    const now = this.o.now();
    let chain = head;
    const slices = admitted.map((m) => {
      const events = sealEvents(chain, m.request.envelopes, {
        incidentId,
        recordedBy: m.request.recordedBy,
        now,
        newEventId: (version) => serverEventId(incidentId, version),
      });
      const last = events[events.length - 1] as StoredEvent;
      chain = { version: last.version, hash: last.hash, recordedAt: last.recordedAt };
      return events;
    });
    const item = commitToItem({
      incidentId,
      version: slot,
      lastVersion: chain.version,
      events: slices.flat(),
      token: randomUUID(),
      appends: slices.map((events) => (events[0] as StoredEvent).version),
    });
    const claimed = admitted.some((m) => m.fingerprints.size > 0);
    if (claimed && Date.parse(this.o.now()) - claimsFrom > WRITER_DEADLINE_MS) {
      // Our claims may count as abandoned by now and be moved (claims.ts): never put after that.
      throw new StoreBusyError(
        `the append to ${incidentId} took too long to be stored safely; nothing was stored`,
      );
    }
    if (await this.putCommit(item)) {
      this.o.reader.rememberHead(incidentId, chain);
      this.o.onCommit?.(item);
      for (const [i, m] of admitted.entries()) {
        const events = (slices[i] as StoredEvent[]).map(brief);
        m.resolve({ created: true, incidentId, version: chain.version, events });
      }
      return "done";
    }
    this.o.reader.forgetHead(incidentId);
    if (expectedVersion === undefined) return { retry: "after-backoff" };
    const current = (await this.o.reader.readHead(incidentId)).version;
    await this.refuse(members[0] as PendingAppend, new VersionConflictError(expectedVersion, current));
    return "done";
  }

  /**
   * Judges each member by the rules, in order, against the state the members admitted before it
   * leave (version, event ids). Returns those admitted; a member that breaks a rule is refused
   * when nothing but stored commits stood before it, and otherwise set aside (see above).
   */
  private async admit(
    incidentId: string,
    members: PendingAppend[],
    head: ChainHead,
    setAside: PendingAppend[],
  ): Promise<PendingAppend[]> {
    const stored = await Promise.all(
      members.map((m) =>
        needsTargets(m.request.envelopes) ? this.targetTypes(incidentId, m.request.envelopes) : undefined,
      ),
    );
    const reports = members.some((m) => categoriesOf(m.request.envelopes).length > 0);
    const categories = new Set(
      reports && this.o.categoriesAt ? await this.o.categoriesAt(incidentId, head.version) : [],
    );
    const admitted: PendingAppend[] = [];
    const groupTypes: Record<string, EventType> = {};
    let version = head.version;
    for (const [i, m] of members.entries()) {
      const { envelopes, batched } = m.request;
      const known = { ...stored[i] };
      for (const [id, type] of Object.entries(groupTypes)) setOwn(known, id, type);
      const breach =
        checkAppend(version, envelopes, batched, known) ??
        (this.o.categoriesAt ? checkCategories(categories, envelopes, batched) : null);
      if (breach && admitted.length > 0) setAside.push(m);
      else if (breach) await this.refuse(m, breachError(breach));
      else {
        admitted.push(m);
        version += envelopes.length;
        for (const e of envelopes) if (e.eventId) setOwn(groupTypes, e.eventId, e.type);
        for (const category of categoriesOf(envelopes)) categories.add(category);
      }
    }
    return admitted;
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
        // The put may have landed before its answer was lost: let the projector look (it is idempotent).
        this.o.onCommit?.(item);
        throw error;
      }
      // The SDK retries a put whose answer was lost; the retry then meets our own commit.
      const slot = await this.o.reader.commitAt(item.incidentId?.S ?? "", Number(item.version?.N));
      return slot?.token === item.token?.S;
    }
  }

  /** Answers a refused append: the first answer again if it is a replay, else the error. */
  private async refuse(m: PendingAppend, error: Error): Promise<void> {
    try {
      if (m.fingerprints.size === 0) throw error;
      const { incidentId, envelopes } = m.request;
      const ids = [...m.fingerprints.keys()];
      const memo: CommitMemo = new Map();
      const outcomes = await Promise.all(
        ids.map((id) => this.ids.lookup(id, incidentId, m.fingerprints, memo)),
      );
      const replay = replayOf(incidentId, envelopes, ids, outcomes);
      if (!replay) throw error;
      m.resolve(this.replayed(replay));
    } catch (thrown) {
      m.reject(thrown);
    }
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
