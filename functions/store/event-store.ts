import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { ChainHead } from "../../events/stored-event.js";
import { BoundedLru } from "../bounded-lru.js";
import type { CategoryCount } from "../incident-categories.js";
import type { AppendResult } from "./append-answers.js";
import { AppendPath, type AppendRequest } from "./append-path.js";
import { ClaimTable } from "./claims.js";
import type { Item } from "./commit-item.js";
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
   * stream stand-in): new commits, puts whose answer was lost, and the commits a replay names.
   */
  onCommit?: (item: Item) => void;
  /** The incident's casualty categories: appends over the cap on them are refused. */
  categories?: CategoryCount;
}

const nowIso = () => new Date().toISOString();

/**
 * The event store: everything that reads the events table (`CommitReader`), plus the one
 * write, `append` (`AppendPath`: claims, the commit put, replays). Both share the head cache,
 * which can only be stale, never wrong.
 */
export class EventStore extends CommitReader {
  private readonly writer: AppendPath;

  constructor(options: EventStoreOptions) {
    const now = options.now ?? nowIso;
    const claims = new ClaimTable(options.db, options.tables.claims, now);
    super(options.db, options.tables.events, claims, new BoundedLru<string, ChainHead>(10_000));
    this.writer = new AppendPath({
      db: options.db,
      table: options.tables.events,
      claims,
      reader: this,
      now,
      maxAttempts: options.maxAttempts ?? 50,
      onCommit: options.onCommit,
      categories: options.categories,
    });
  }

  append(request: AppendRequest): Promise<AppendResult> {
    return this.writer.append(request);
  }

  /** The first answer to a faithful repeat of a stored append, else null (AppendPath.replay). */
  replay(request: AppendRequest): Promise<AppendResult | null> {
    return this.writer.replay(request);
  }
}
