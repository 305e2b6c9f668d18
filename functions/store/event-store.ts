import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { ChainCheck, ChainHead, StoredEvent } from "../../events/stored-event.js";
import { BoundedLru } from "../bounded-lru.js";
import type { AppendResult } from "./append-answers.js";
import { AppendPath, type AppendRequest, type CategoriesAt } from "./append-path.js";
import { ClaimTable } from "./claims.js";
import type { Commit, Item } from "./commit-item.js";
import { CommitReader } from "./commit-reader.js";

export type { AppendResult } from "./append-answers.js";
export type { AppendRequest } from "./append-path.js";

export interface EventStoreOptions {
  db: DynamoDBClient;
  tables: { events: string; claims: string };
  /** ISO 8601 UTC with milliseconds. */
  now?: () => string;
  /** Attempts for an append without If-Match that keeps losing races (default 50). */
  maxAttempts?: number;
  /**
   * Told of each commit that may have been stored, as a stream would see it (the local
   * projector feed): new commits, puts whose answer was lost, and the commits a replay names.
   */
  onCommit?: (item: Item) => void;
  /** The incident's casualty categories at a version: appends over the cap on them are refused. */
  categoriesAt?: CategoriesAt;
}

const nowIso = () => new Date().toISOString();

/**
 * The event store: a thin front over the write path (`AppendPath`: claims, the commit put,
 * replays) and the reader (`CommitReader`: head, commits, pages, single events, the chain
 * check). They share the head cache, which can only be stale, never wrong.
 */
export class EventStore {
  private readonly reader: CommitReader;
  private readonly writer: AppendPath;

  constructor(options: EventStoreOptions) {
    const now = options.now ?? nowIso;
    const claims = new ClaimTable(options.db, options.tables.claims, now);
    this.reader = new CommitReader(
      options.db,
      options.tables.events,
      claims,
      new BoundedLru<string, ChainHead>(10_000),
    );
    this.writer = new AppendPath({
      db: options.db,
      table: options.tables.events,
      claims,
      reader: this.reader,
      now,
      maxAttempts: options.maxAttempts ?? 50,
      onCommit: options.onCommit,
      categoriesAt: options.categoriesAt,
    });
  }

  append(request: AppendRequest): Promise<AppendResult> {
    return this.writer.append(request);
  }

  readHead(incidentId: string): Promise<ChainHead> {
    return this.reader.readHead(incidentId);
  }

  commitItems(incidentId: string, after = 0, atBoundary = false): AsyncGenerator<Item> {
    return this.reader.commitItems(incidentId, after, atBoundary);
  }

  commits(incidentId: string, after = 0, atBoundary = false): AsyncGenerator<Commit> {
    return this.reader.commits(incidentId, after, atBoundary);
  }

  events(incidentId: string, after = 0, atBoundary = false): AsyncGenerator<StoredEvent> {
    return this.reader.events(incidentId, after, atBoundary);
  }

  readPage(
    incidentId: string,
    after: number,
    limit: number,
  ): Promise<{ items: StoredEvent[]; next: number | null }> {
    return this.reader.readPage(incidentId, after, limit);
  }

  /** The event at `version` (one Query, through the commit holding it), or null. */
  eventAt(incidentId: string, version: number): Promise<StoredEvent | null> {
    return this.reader.eventAt(incidentId, version);
  }

  /** An event of this incident by id, through its claim or the version a server-made id names. */
  findEvent(incidentId: string, eventId: string): Promise<StoredEvent | null> {
    return this.reader.findEvent(incidentId, eventId);
  }

  /** Every commit item, whole, page by page, from one segment of a parallel full scan. */
  scanCommitPages(segment = 0, totalSegments = 1): AsyncGenerator<Item[]> {
    return this.reader.scanCommitPages(segment, totalSegments);
  }

  /** Every incident's head version, from a full scan. */
  incidentVersions(): Promise<Map<string, number>> {
    return this.reader.incidentVersions();
  }

  /** Every stored event, re-read, with the chain re-checked over them. */
  readVerified(incidentId: string): Promise<{ events: StoredEvent[]; check: ChainCheck }> {
    return this.reader.readVerified(incidentId);
  }

  /** The chain check streamed page by page, keeping no events; `checked` counts them. */
  verify(incidentId: string): Promise<ChainCheck & { incidentId: string; checked: number }> {
    return this.reader.verify(incidentId);
  }

  /** Events with versions in (after, last], in version order: a read bounded at both ends. */
  eventsBetween(incidentId: string, after: number, last: number): Promise<StoredEvent[]> {
    return this.reader.eventsBetween(incidentId, after, last);
  }
}
