import {
  type DynamoDBClient,
  GetItemCommand,
  paginateQuery,
  paginateScan,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import { MAX_BATCH } from "../../events/schemas.js";
import { incidentTag, parseServerEventId } from "../../events/server-ids.js";
import {
  type ChainCheck,
  type ChainHead,
  ChainVerifier,
  EMPTY_HEAD,
  type StoredEvent,
} from "../../events/stored-event.js";
import type { BoundedLru } from "../bounded-lru.js";
import type { ClaimTable } from "./claims.js";
import { type Commit, type Item, itemToCommit, itemToHead, UnreadableCommitError } from "./commit-item.js";

/** Commits read once per request, by `incidentId@slot`: several ids of one batch often share one. */
export type CommitMemo = Map<string, Promise<Commit | null>>;

/**
 * Where a read starts: past version `after` (default 0). `afterEndsCommit`: `after` is known to
 * end a commit (a view's version always does), so the query starts right after it instead of
 * a batch's length before.
 */
export interface ReadFrom {
  after?: number;
  afterEndsCommit?: boolean;
}

/**
 * Everything that reads the events table: the head, commits, pages, single events and the
 * chain check. All reads that decide anything are consistent.
 *
 * It relies on the invariants written at the top of `append-path.ts` (a head is a commit's
 * end; commits are immutable) and on a commit holding at most MAX_BATCH events.
 */
export class CommitReader {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
    private readonly claims: ClaimTable,
    private readonly heads: BoundedLru<string, ChainHead>,
  ) {}

  /** The last head this process saw; it can only be stale, never wrong (commits are immutable). */
  cachedHead(incidentId: string): ChainHead | undefined {
    return this.heads.get(incidentId);
  }

  /** Remembers a head unless a newer one is already known (a head never goes back). */
  rememberHead(incidentId: string, head: ChainHead): void {
    const known = this.heads.get(incidentId);
    if (!known || known.version <= head.version) this.heads.set(incidentId, head);
  }

  forgetHead(incidentId: string): void {
    this.heads.delete(incidentId);
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
    if (!item) return EMPTY_HEAD;
    const head = itemToHead(item);
    this.rememberHead(incidentId, head);
    return head;
  }

  /** The commit at `slot` (its first version), or null when the slot is empty. */
  commitAt(incidentId: string, slot: number, memo: CommitMemo = new Map()): Promise<Commit | null> {
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

  /** The commit that holds `version`: the last one starting at or before it (one Query). */
  async commitHolding(incidentId: string, version: number): Promise<Commit | null> {
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

  /** The event at `version`, through the commit that holds it. */
  async eventAt(incidentId: string, version: number): Promise<StoredEvent | null> {
    if (!Number.isSafeInteger(version) || version < 1) return null;
    const commit = await this.commitHolding(incidentId, version);
    return commit?.events.find((e) => e.version === version) ?? null;
  }

  /**
   * An event of this incident by id, without reading the incident: a client id through its
   * claim (the only slot it can be stored at), a server-made id through the version it names.
   */
  async findEvent(
    incidentId: string,
    eventId: string,
    memo: CommitMemo = new Map(),
  ): Promise<StoredEvent | null> {
    const made = parseServerEventId(eventId);
    let commit: Commit | null = null;
    if (made) {
      if (made.tag === incidentTag(incidentId)) commit = await this.commitHolding(incidentId, made.version);
    } else {
      const claim = await this.claims.get(eventId);
      if (claim?.incidentId === incidentId) commit = await this.commitAt(incidentId, claim.slot, memo);
    }
    return commit?.events.find((e) => e.eventId === eventId) ?? null;
  }

  /** The event a client-made id was stored as, in whichever incident its claim names. */
  async findClientEvent(eventId: string): Promise<StoredEvent | null> {
    const claim = await this.claims.get(eventId);
    return claim?.incidentId ? this.findEvent(claim.incidentId, eventId) : null;
  }

  /** Raw commit items from the one that holds version `after + 1` on, in version order, a page at a time. */
  async *commitItems(
    incidentId: string,
    { after = 0, afterEndsCommit = false }: ReadFrom = {},
  ): AsyncGenerator<Item> {
    const from = afterEndsCommit ? after + 1 : Math.max(1, after + 2 - MAX_BATCH);
    const pages = paginateQuery(
      { client: this.db },
      {
        TableName: this.table,
        KeyConditionExpression: "incidentId = :i AND version >= :v",
        ExpressionAttributeValues: { ":i": { S: incidentId }, ":v": { N: String(from) } },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  async *commits(incidentId: string, from: ReadFrom = {}): AsyncGenerator<Commit> {
    const after = from.after ?? 0;
    for await (const item of this.commitItems(incidentId, from)) {
      const commit = itemToCommit(item);
      if (commit.lastVersion > after) yield commit;
    }
  }

  /** Stored events with a version above `after`, in version order. */
  async *events(incidentId: string, from: ReadFrom = {}): AsyncGenerator<StoredEvent> {
    const after = from.after ?? 0;
    for await (const commit of this.commits(incidentId, from)) {
      for (const event of commit.events) if (event.version > after) yield event;
    }
  }

  /**
   * Events with versions in (after, last], in version order: a read bounded at both ends, so a
   * past view or a page of the timeline costs what it shows, whatever follows it.
   */
  async eventsBetween(incidentId: string, after: number, last: number): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    if (last <= after) return out;
    const pages = paginateQuery(
      { client: this.db },
      {
        TableName: this.table,
        KeyConditionExpression: "incidentId = :i AND version BETWEEN :f AND :l",
        ExpressionAttributeValues: {
          ":i": { S: incidentId },
          ":f": { N: String(Math.max(1, after + 2 - MAX_BATCH)) },
          ":l": { N: String(last) },
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages)
      for (const item of page.Items ?? [])
        for (const e of itemToCommit(item).events) if (e.version > after && e.version <= last) out.push(e);
    return out;
  }

  /** One page of events, and the `after` of the next page (null on the last). */
  async readPage(
    incidentId: string,
    after: number,
    limit: number,
  ): Promise<{ items: StoredEvent[]; next: number | null }> {
    const items: StoredEvent[] = [];
    for await (const event of this.events(incidentId, { after })) {
      if (items.length === limit) return { items, next: (items[items.length - 1] as StoredEvent).version };
      items.push(event);
    }
    return { items, next: null };
  }

  /**
   * Every commit item of the table, whole, a page at a time: one segment of a parallel scan.
   * DynamoDB keeps an incident's items together in its partition, in version order, and a scan
   * reads them that way; a reader relying on it must still check (see view-rebuild.ts).
   */
  async *scanCommitPages(segment = 0, totalSegments = 1): AsyncGenerator<Item[]> {
    const pages = paginateScan(
      { client: this.db },
      { TableName: this.table, Segment: segment, TotalSegments: totalSegments, ConsistentRead: true },
    );
    for await (const page of pages) yield page.Items ?? [];
  }

  /** Every incident's head version, from a full scan (the operation promises to read everything). */
  async incidentVersions(): Promise<Map<string, number>> {
    const heads = new Map<string, number>();
    const pages = paginateScan(
      { client: this.db },
      { TableName: this.table, ProjectionExpression: "incidentId, lastVersion" },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const id = item.incidentId?.S ?? "";
        heads.set(id, Math.max(heads.get(id) ?? 0, Number(item.lastVersion?.N)));
      }
    }
    return heads;
  }

  /**
   * Streams every stored item of an incident (no cache) through the chain check, handing each
   * event on as it is checked. An unreadable item stops the read and is the break, unless an
   * earlier one came first. Holds one page of items at a time.
   */
  async checkChain(incidentId: string, onEvent?: (event: StoredEvent) => void): Promise<ChainVerifier> {
    const chain = new ChainVerifier();
    for await (const item of this.commitItems(incidentId)) {
      let commit: Commit;
      try {
        commit = itemToCommit(item);
      } catch (error) {
        if (!(error instanceof UnreadableCommitError)) throw error;
        chain.breakAt(error.version, `stored item is unreadable: ${error.message}`);
        break;
      }
      for (const event of commit.events) {
        onEvent?.(event);
        chain.push(event);
      }
      // Past a break, later events prove nothing more, unless the caller wants them all.
      if (!chain.ok && !onEvent) break;
    }
    return chain;
  }

  /** Every stored event, re-read, with the chain re-checked over them (the dashboard shows both). */
  async readVerified(incidentId: string): Promise<{ events: StoredEvent[]; check: ChainCheck }> {
    const events: StoredEvent[] = [];
    const chain = await this.checkChain(incidentId, (event) => events.push(event));
    return { events, check: chain.result() };
  }

  /** The chain check alone, in bounded memory: nothing is kept but the last hash. */
  async verify(incidentId: string): Promise<ChainCheck & { incidentId: string; checked: number }> {
    const chain = await this.checkChain(incidentId);
    return { incidentId, ...chain.result(), checked: chain.checked };
  }
}
