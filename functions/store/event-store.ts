import { randomUUID } from "node:crypto";
import {
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { checkAppend, needsTargets, type RuleBreach } from "../../events/append-rules.js";
import { setOwn } from "../../events/own-keys.js";
import type { Envelope, EventType } from "../../events/schemas.js";
import { MAX_BATCH } from "../../events/schemas.js";
import { incidentTag, parseServerEventId, serverEventId } from "../../events/server-ids.js";
import {
  type ChainCheck,
  type ChainHead,
  contentFingerprint,
  EMPTY_HEAD,
  type StoredEvent,
  sealEvents,
  verifyChain,
} from "../../events/stored-event.js";
import {
  EventIdConflictError,
  IncidentExistsError,
  IncidentMissingError,
  StoreBusyError,
  ValidationError,
  VersionConflictError,
} from "../errors.js";
import { type Claim, ClaimTable } from "./claims.js";
import {
  type Commit,
  commitToItem,
  type Item,
  itemToCommit,
  itemToHead,
  UnreadableCommitError,
} from "./commit-item.js";
import { isConditionFailed } from "./dynamo-client.js";
import { HeadCache } from "./head-cache.js";

export interface EventStoreOptions {
  db: DynamoDBClient;
  tables: { events: string; claims: string };
  /** ISO 8601 UTC with milliseconds. */
  now?: () => string;
  /** Attempts for an append without If-Match that keeps losing races (default 50). */
  maxAttempts?: number;
  /** Called with each committed item, as a stream would see it (the local projector feed). */
  onCommit?: (item: Item) => void;
}

export interface AppendRequest {
  incidentId: string;
  envelopes: readonly Envelope[];
  recordedBy: string;
  /** If-Match: the version the incident must be at (0: it must not exist). */
  expectedVersion?: number;
  /** Whether the client sent `{ events: [...] }`: error paths then name `events[i]`. */
  batched: boolean;
}

export interface AppendResult {
  /** false: every event was already stored by an earlier identical append (answer 200). */
  created: boolean;
  incidentId: string;
  version: number;
  events: { eventId: string; version: number; hash: string }[];
}

type ClaimOutcome =
  | { kind: "held" }
  | { kind: "stale" }
  | { kind: "stored"; same: boolean; event: StoredEvent; commit: Commit }
  | { kind: "reserved"; claim: Claim }
  /** An id of the archive's own form that does not name this event here. */
  | { kind: "foreign"; madeElsewhere: boolean };

const nowIso = () => new Date().toISOString();

export class EventStore {
  private readonly db: DynamoDBClient;
  private readonly table: string;
  private readonly claims: ClaimTable;
  private readonly heads = new HeadCache(10_000);
  private readonly lanes = new Map<string, Promise<void>>();
  private readonly now: () => string;
  private readonly maxAttempts: number;
  private readonly onCommit: ((item: Item) => void) | undefined;

  constructor(options: EventStoreOptions) {
    this.db = options.db;
    this.table = options.tables.events;
    this.now = options.now ?? nowIso;
    this.claims = new ClaimTable(options.db, options.tables.claims, this.now);
    this.maxAttempts = options.maxAttempts ?? 50;
    this.onCommit = options.onCommit;
  }

  /**
   * Appends 1–25 events as one commit. Without `expectedVersion` a lost race is retried here
   * (fresh head, jittered backoff), so concurrent writers never see a 409 for it.
   */
  append(request: AppendRequest): Promise<AppendResult> {
    // Writers in this process take turns per incident, so they never race each other for a
    // slot; the conditional put still settles races with other processes (Lambdas).
    const previous = this.lanes.get(request.incidentId) ?? Promise.resolve();
    const turn = previous.then(() => this.appendNow(request));
    const settled = turn.then(
      () => undefined,
      () => undefined,
    );
    this.lanes.set(request.incidentId, settled);
    void settled.then(() => {
      if (this.lanes.get(request.incidentId) === settled) this.lanes.delete(request.incidentId);
    });
    return turn;
  }

  private async appendNow(request: AppendRequest): Promise<AppendResult> {
    const { incidentId, envelopes, expectedVersion } = request;
    const fingerprints = new Map<string, string>();
    for (const e of envelopes) if (e.eventId) fingerprints.set(e.eventId, contentFingerprint(incidentId, e));

    let fresh = false;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      let head = fresh
        ? await this.readHead(incidentId)
        : (this.heads.get(incidentId) ?? (await this.readHead(incidentId)));
      if (expectedVersion !== undefined && head.version !== expectedVersion && !fresh)
        head = await this.readHead(incidentId);
      if (expectedVersion !== undefined && head.version !== expectedVersion) {
        return (
          (await this.replayOf(incidentId, envelopes, fingerprints)) ??
          this.fail(new VersionConflictError(expectedVersion, head.version))
        );
      }
      const known = needsTargets(envelopes) ? await this.targetTypes(incidentId, envelopes) : undefined;
      const breach = checkAppend(head.version, envelopes, request.batched, known);
      if (breach)
        return (await this.replayOf(incidentId, envelopes, fingerprints)) ?? this.fail(breachError(breach));

      const slot = head.version + 1;
      if (fingerprints.size > 0) {
        const outcome = await this.secureClaims(incidentId, slot, envelopes, fingerprints);
        if (outcome === "stale") {
          fresh = true;
          continue;
        }
        if (outcome !== "held") return outcome;
      }

      const events = sealEvents(head, envelopes, {
        incidentId,
        recordedBy: request.recordedBy,
        now: this.now(),
        newEventId: (version) => serverEventId(incidentId, version),
      });
      const last = events[events.length - 1] as StoredEvent;
      const token = randomUUID();
      const item = commitToItem({ incidentId, version: slot, lastVersion: last.version, events, token });
      try {
        await this.db.send(
          new PutItemCommand({
            TableName: this.table,
            Item: item,
            ConditionExpression: "attribute_not_exists(version)",
          }),
        );
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
        // The SDK retries a put whose answer was lost; the retry then meets our own commit.
        if ((await this.commitAt(incidentId, slot, new Map()))?.token === token) {
          return this.committed(incidentId, item, events);
        }
        this.heads.delete(incidentId);
        fresh = true;
        if (expectedVersion !== undefined) {
          const replay = await this.replayOf(incidentId, envelopes, fingerprints);
          if (replay) return replay;
          throw new VersionConflictError(expectedVersion, (await this.readHead(incidentId)).version);
        }
        await backoff(attempt);
        continue;
      }
      return this.committed(incidentId, item, events);
    }
    throw new StoreBusyError(
      `could not append to ${incidentId} after ${this.maxAttempts} attempts: too many concurrent writers; nothing was stored`,
    );
  }

  private committed(incidentId: string, item: Item, events: StoredEvent[]): AppendResult {
    const last = events[events.length - 1] as StoredEvent;
    this.heads.set(incidentId, { version: last.version, hash: last.hash, recordedAt: last.recordedAt });
    this.onCommit?.(item);
    return {
      created: true,
      incidentId,
      version: last.version,
      events: events.map(({ eventId, version, hash }) => ({ eventId, version, hash })),
    };
  }

  private fail(error: Error): never {
    throw error;
  }

  /** Reserves every client id of the append for `slot`, or says why it cannot. */
  private async secureClaims(
    incidentId: string,
    slot: number,
    envelopes: readonly Envelope[],
    fingerprints: Map<string, string>,
  ): Promise<"held" | "stale" | AppendResult> {
    const commits = new Map<string, Promise<Commit | null>>();
    const ids = [...fingerprints.keys()];
    // A batch that is refused must not leave its other ids reserved: look before claiming.
    if (ids.length > 1) {
      const seen = await Promise.all(ids.map((id) => this.lookup(id, incidentId, fingerprints, commits)));
      this.throwConflicts(incidentId, envelopes, ids, seen);
      const stored = seen.filter((o) => o.kind === "stored").length;
      if (stored > 0 && stored < envelopes.length) throw partlyStored(envelopes, ids, seen);
    }
    const outcomes = await Promise.all(
      ids.map((id) =>
        parseServerEventId(id)
          ? this.lookup(id, incidentId, fingerprints, commits)
          : this.claimOne(id, incidentId, slot, fingerprints, commits),
      ),
    );
    this.throwConflicts(incidentId, envelopes, ids, outcomes);
    if (outcomes.some((o) => o.kind === "stale")) return "stale";
    const stored = outcomes.filter((o) => o.kind === "stored");
    if (stored.length === 0 && outcomes.every((o) => o.kind === "held")) return "held";
    if (stored.length === envelopes.length) {
      return replayResult(incidentId, envelopes, outcomes as Extract<ClaimOutcome, { kind: "stored" }>[]);
    }
    throw new EventIdConflictError(
      "part of this batch is already stored; a batch is stored whole or not at all, so post the remaining events on their own",
      ids.flatMap((id, i) =>
        outcomes[i]?.kind === "stored"
          ? [{ path: pathOf(envelopes, id), message: `${id} is already stored` }]
          : [],
      ),
    );
  }

  private throwConflicts(
    incidentId: string,
    envelopes: readonly Envelope[],
    ids: string[],
    outcomes: ClaimOutcome[],
  ): void {
    const conflicts = ids.flatMap((id, i) => {
      const message = conflictMessage(id, incidentId, outcomes[i] as ClaimOutcome);
      return message ? [{ path: pathOf(envelopes, id), message }] : [];
    });
    if (conflicts.length > 0) {
      throw new EventIdConflictError(conflicts.map((c) => c.message).join("; "), conflicts);
    }
  }

  private async claimOne(
    eventId: string,
    incidentId: string,
    slot: number,
    fingerprints: Map<string, string>,
    commits: Map<string, Promise<Commit | null>>,
  ): Promise<ClaimOutcome> {
    for (let round = 0; round < 20; round++) {
      if (await this.claims.tryClaim({ eventId, incidentId, slot })) return { kind: "held" };
      const claim = await this.claims.get(eventId);
      if (!claim) continue;
      if (claim.incidentId === incidentId && claim.slot === slot) return { kind: "held" };
      const commit = await this.commitAt(claim.incidentId, claim.slot, commits);
      const event = commit?.events.find((e) => e.eventId === eventId);
      if (commit && event) return storedOutcome(incidentId, event, commit, fingerprints);
      if (!commit) return claim.incidentId === incidentId ? { kind: "stale" } : { kind: "reserved", claim };
      // The slot the claim names was filled without this event: the claim is free to move.
      if (await this.claims.move(claim, { incidentId, slot })) return { kind: "held" };
    }
    return { kind: "stale" };
  }

  /** What is known of an id without reserving anything. */
  private async lookup(
    eventId: string,
    incidentId: string,
    fingerprints: Map<string, string>,
    commits: Map<string, Promise<Commit | null>>,
  ): Promise<ClaimOutcome> {
    const made = parseServerEventId(eventId);
    if (made) {
      // An id the archive made: it can only be a repeat of the very event it names.
      if (made.tag !== incidentTag(incidentId)) return { kind: "foreign", madeElsewhere: true };
      const commit = await this.commitHolding(incidentId, made.version);
      const event = commit?.events.find((e) => e.version === made.version);
      if (commit && event?.eventId === eventId) return storedOutcome(incidentId, event, commit, fingerprints);
      return { kind: "foreign", madeElsewhere: false };
    }
    const claim = await this.claims.get(eventId);
    if (!claim) return { kind: "held" };
    const commit = await this.commitAt(claim.incidentId, claim.slot, commits);
    const event = commit?.events.find((e) => e.eventId === eventId);
    if (commit && event) return storedOutcome(incidentId, event, commit, fingerprints);
    if (!commit && claim.incidentId !== incidentId) return { kind: "reserved", claim };
    return { kind: "held" };
  }

  /** The earlier answer, if every event of this append is already stored with this content. */
  private async replayOf(
    incidentId: string,
    envelopes: readonly Envelope[],
    fingerprints: Map<string, string>,
  ): Promise<AppendResult | null> {
    if (fingerprints.size === 0 || fingerprints.size !== envelopes.length) return null;
    const commits = new Map<string, Promise<Commit | null>>();
    const outcomes = await Promise.all(
      [...fingerprints.keys()].map((id) => this.lookup(id, incidentId, fingerprints, commits)),
    );
    if (!outcomes.every((o) => o.kind === "stored" && o.same)) return null;
    return replayResult(incidentId, envelopes, outcomes as Extract<ClaimOutcome, { kind: "stored" }>[]);
  }

  /** The commit that holds `version`: the last one starting at or before it. */
  private async commitHolding(incidentId: string, version: number): Promise<Commit | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "incidentId = :i AND version <= :v",
        ExpressionAttributeValues: { ":i": { S: incidentId }, ":v": { N: String(version) } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    const commit = item ? itemToCommit(item) : null;
    return commit && commit.lastVersion >= version ? commit : null;
  }

  private commitAt(
    incidentId: string,
    slot: number,
    memo: Map<string, Promise<Commit | null>>,
  ): Promise<Commit | null> {
    const key = `${incidentId}@${slot}`;
    let found = memo.get(key);
    if (!found) {
      found = this.db
        .send(
          new GetItemCommand({
            TableName: this.table,
            Key: { incidentId: { S: incidentId }, version: { N: String(slot) } },
            ConsistentRead: true,
          }),
        )
        .then((out) => (out.Item ? itemToCommit(out.Item) : null));
      memo.set(key, found);
    }
    return found;
  }

  /** The newest committed version and hash of an incident (consistent: it decides the next slot). */
  async readHead(incidentId: string): Promise<ChainHead> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "incidentId = :i",
        ExpressionAttributeValues: { ":i": { S: incidentId } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
        ProjectionExpression: "lastVersion, lastHash, lastRecordedAt",
      }),
    );
    const item = out.Items?.[0];
    const head = item ? itemToHead(item) : EMPTY_HEAD;
    if (item) this.heads.set(incidentId, head);
    return head;
  }

  /**
   * Raw commit items from the one that holds version `after + 1` on, in version order.
   * `atBoundary`: `after` is known to end a commit (a view's version always does), so the
   * query can start right after it instead of a batch's length before.
   */
  async *commitItems(incidentId: string, after = 0, atBoundary = false): AsyncGenerator<Item> {
    // A commit holds at most MAX_BATCH events, so the one holding `after + 1` starts no earlier than this.
    const from = atBoundary ? after + 1 : Math.max(1, after + 2 - MAX_BATCH);
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "incidentId = :i AND version >= :v",
          ExpressionAttributeValues: { ":i": { S: incidentId }, ":v": { N: String(from) } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) yield item;
      start = out.LastEvaluatedKey;
    } while (start);
  }

  async *commits(incidentId: string, after = 0, atBoundary = false): AsyncGenerator<Commit> {
    for await (const item of this.commitItems(incidentId, after, atBoundary)) {
      const commit = itemToCommit(item);
      if (commit.lastVersion > after) yield commit;
    }
  }

  /** Stored events with a version above `after`, in version order. */
  async *events(incidentId: string, after = 0, atBoundary = false): AsyncGenerator<StoredEvent> {
    for await (const commit of this.commits(incidentId, after, atBoundary)) {
      for (const event of commit.events) if (event.version > after) yield event;
    }
  }

  /** One page of events, and the `after` of the next page (null on the last). */
  async readPage(
    incidentId: string,
    after: number,
    limit: number,
  ): Promise<{ items: StoredEvent[]; next: number | null }> {
    const items: StoredEvent[] = [];
    for await (const event of this.events(incidentId, after)) {
      if (items.length === limit) return { items, next: (items[items.length - 1] as StoredEvent).version };
      items.push(event);
    }
    return { items, next: null };
  }

  /**
   * The types of the events this append's targets name, found the way a replay finds them —
   * through the target's claim, or the place a server-made id names — so checking a
   * retraction or an assessment costs a read per target, not a read of the whole incident.
   */
  private async targetTypes(
    incidentId: string,
    envelopes: readonly Envelope[],
  ): Promise<Record<string, EventType>> {
    const targets = new Set(
      envelopes.flatMap((e) =>
        e.type === "ClaimAssessed" || e.type === "ReportRetracted" ? [e.data.targetEventId] : [],
      ),
    );
    const commits = new Map<string, Promise<Commit | null>>();
    const types: Record<string, EventType> = {};
    await Promise.all(
      [...targets].map(async (eventId) => {
        const made = parseServerEventId(eventId);
        let commit: Commit | null = null;
        if (made) {
          if (made.tag === incidentTag(incidentId))
            commit = await this.commitHolding(incidentId, made.version);
        } else {
          const claim = await this.claims.get(eventId);
          if (claim?.incidentId === incidentId)
            commit = await this.commitAt(claim.incidentId, claim.slot, commits);
        }
        const event = commit?.events.find((e) => e.eventId === eventId);
        if (event) setOwn(types, eventId, event.type);
      }),
    );
    return types;
  }

  /** Every incident's head version, from a full scan: the local catch-up at start uses it. */
  async incidentVersions(): Promise<Map<string, number>> {
    const heads = new Map<string, number>();
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await this.db.send(
        new ScanCommand({
          TableName: this.table,
          ProjectionExpression: "incidentId, lastVersion",
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) {
        const id = item.incidentId?.S ?? "";
        heads.set(id, Math.max(heads.get(id) ?? 0, Number(item.lastVersion?.N)));
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return heads;
  }

  /**
   * Every stored event, re-read (no cache), with the chain re-checked over them as an outside
   * reader would. An unreadable item stops the read and is the break, unless one came earlier.
   */
  async readVerified(incidentId: string): Promise<{ events: StoredEvent[]; check: ChainCheck }> {
    const events: StoredEvent[] = [];
    for await (const item of this.commitItems(incidentId)) {
      try {
        events.push(...itemToCommit(item).events);
      } catch (error) {
        if (!(error instanceof UnreadableCommitError)) throw error;
        const before = verifyChain(events);
        const check: ChainCheck = before.ok
          ? {
              ok: false,
              firstBadVersion: error.version,
              reason: `stored item is unreadable: ${error.message}`,
              version: before.version,
            }
          : before;
        return { events, check };
      }
    }
    return { events, check: verifyChain(events) };
  }

  async verify(incidentId: string): Promise<ChainCheck & { incidentId: string }> {
    return { incidentId, ...(await this.readVerified(incidentId)).check };
  }

  /** The event at `version` of an incident (one read: the commit holding it), or null. */
  async eventAt(incidentId: string, version: number): Promise<StoredEvent | null> {
    if (version < 1) return null;
    const commit = await this.commitHolding(incidentId, version);
    return commit?.events.find((e) => e.version === version) ?? null;
  }

  /**
   * Events with versions in (after, last], in version order: a read bounded at both ends, so a
   * past view or a page of the timeline costs what it shows, whatever follows it.
   */
  async eventsBetween(incidentId: string, after: number, last: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    if (last <= after) return out;
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "incidentId = :i AND version BETWEEN :f AND :l",
          ExpressionAttributeValues: {
            ":i": { S: incidentId },
            ":f": { N: String(Math.max(1, after + 2 - MAX_BATCH)) },
            ":l": { N: String(last) },
          },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? [])
        for (const e of itemToCommit(item).events) if (e.version > after && e.version <= last) out.push(e);
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }

  /** An event of this incident by id, found through its claim or the version a server-made id names. */
  async findEvent(incidentId: string, eventId: string): Promise<StoredEvent | null> {
    const made = parseServerEventId(eventId);
    let commit: Commit | null = null;
    if (made) {
      if (made.tag === incidentTag(incidentId)) commit = await this.commitHolding(incidentId, made.version);
    } else {
      const claim = await this.claims.get(eventId);
      if (claim?.incidentId === incidentId)
        commit = await this.commitAt(claim.incidentId, claim.slot, new Map());
    }
    return commit?.events.find((e) => e.eventId === eventId) ?? null;
  }
}

function pathOf(envelopes: readonly Envelope[], eventId: string): string {
  const i = envelopes.findIndex((e) => e.eventId === eventId);
  return envelopes.length === 1 ? "eventId" : `events[${i}].eventId`;
}

function partlyStored(
  envelopes: readonly Envelope[],
  ids: string[],
  outcomes: ClaimOutcome[],
): EventIdConflictError {
  return new EventIdConflictError(
    "part of this batch is already stored; a batch is stored whole or not at all, so post the remaining events on their own",
    ids.flatMap((id, i) =>
      outcomes[i]?.kind === "stored"
        ? [{ path: pathOf(envelopes, id), message: `${id} is already stored` }]
        : [],
    ),
  );
}

function storedOutcome(
  incidentId: string,
  event: StoredEvent,
  commit: Commit,
  fingerprints: Map<string, string>,
): ClaimOutcome {
  const same =
    event.incidentId === incidentId &&
    contentFingerprint(incidentId, event) === fingerprints.get(event.eventId);
  return { kind: "stored", same, event, commit };
}

/** Why an id cannot be used for this append, or null when it can (or is a faithful repeat). */
function conflictMessage(id: string, incidentId: string, o: ClaimOutcome): string | null {
  switch (o.kind) {
    case "reserved":
      return `${id} is reserved by an unfinished append to incident ${o.claim.incidentId}; retry that append or use another eventId`;
    case "foreign":
      return o.madeElsewhere
        ? `${id} is an id this archive made for an event of another incident`
        : `${id} has the form of the ids this archive makes (ev_…) but names no event of this incident; choose another eventId`;
    case "stored":
      if (o.same) return null;
      return o.event.incidentId === incidentId
        ? `${id} is already stored (version ${o.event.version}) with different content`
        : `${id} is already used on incident ${o.event.incidentId}`;
    default:
      return null;
  }
}

function replayResult(
  incidentId: string,
  envelopes: readonly Envelope[],
  stored: Extract<ClaimOutcome, { kind: "stored" }>[],
): AppendResult {
  const byId = new Map(stored.map((s) => [s.event.eventId, s]));
  const events = envelopes.map((e) => byId.get(e.eventId as string)?.event as StoredEvent);
  return {
    created: false,
    incidentId,
    version: Math.max(...stored.map((s) => s.commit.lastVersion)),
    events: events.map(({ eventId, version, hash }) => ({ eventId, version, hash })),
  };
}

function breachError(breach: RuleBreach): Error {
  switch (breach.kind) {
    case "incident-exists":
      return new IncidentExistsError(breach.detail);
    case "incident-missing":
      return new IncidentMissingError(breach.detail);
    case "bad-target":
      return new ValidationError(breach.detail, breach.errors);
  }
}

/** Full jitter, capped low: writers to one incident are CPU-bound, not waiting on a queue. */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(50, 2 ** Math.min(attempt, 6));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}
