import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { ViewStore } from "../store/view-store.js";

type ViewItem = Record<string, AttributeValue>;
type CachedView = { version: number; json: string; at: number };

export interface ViewCacheOptions {
  /** Texts held at most, in UTF-16 code units (≈ bytes for the JSON of a summary). */
  maxChars?: number;
  /** How long a copy is served after it was read or reported: bounds what a writer outside this process (`npm run rebuild`) leaves unseen. */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * The request thread's copy of the summaries it read lately. Locally the one projector is this
 * process's feed thread, and it reports every pass of an incident (`settled`), with the view it
 * saved, before the reads waiting for that pass go on: `saved` puts that view in place of the
 * copy (`invalidate` drops it when the pass saved none), so a read never gets an older view than
 * the store would give it, and a read that waited for a pass needs no store call. A read that
 * overlapped an invalidation of its incident is answered but not kept. Bounded in size (least
 * recently used out first) and in age.
 */
export class ViewCache {
  private readonly views = new Map<string, CachedView>();
  private chars = 0;
  /** Invalidations counted, and the count at each incident's latest (bounded: see `forget`). */
  private count = 0;
  private readonly invalidatedAt = new Map<string, number>();
  /** Reads that began at or before this count may have missed an invalidation forgotten since. */
  private forgottenUpTo = 0;
  private readonly maxChars: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(options: ViewCacheOptions = {}) {
    this.maxChars = options.maxChars ?? 32 * 1024 * 1024;
    this.maxAgeMs = options.maxAgeMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  /** A view store whose summary reads go through this cache (the other reads and the writes as they are). */
  store(db: DynamoDBClient, table: string): ViewStore {
    return new CachedViewStore(db, table, this);
  }

  /**
   * Drops every copy, and keeps none a read in flight brings back: the feed thread died, so a
   * view may be stored that no report will announce.
   */
  clear(): void {
    this.views.clear();
    this.chars = 0;
    this.count += 1;
    this.forgottenUpTo = this.count;
    this.invalidatedAt.clear();
  }

  invalidate(incidentId: string): void {
    this.count += 1;
    this.drop(incidentId);
    this.invalidatedAt.delete(incidentId);
    this.invalidatedAt.set(incidentId, this.count);
    if (this.invalidatedAt.size > 10_000) this.forget();
  }

  /** The view just stored for this incident: the copy to serve from now on. */
  saved(incidentId: string, view: { version: number; json: string }): void {
    this.invalidate(incidentId);
    this.keep(incidentId, this.count, view);
  }

  get(incidentId: string): CachedView | undefined {
    const view = this.views.get(incidentId);
    if (!view) return undefined;
    if (this.now() - view.at > this.maxAgeMs) {
      this.drop(incidentId);
      return undefined;
    }
    // Least recently used first: a hit moves to the end.
    this.views.delete(incidentId);
    this.views.set(incidentId, view);
    return view;
  }

  /** Where a read starts: pass it to `keep` with what it read. */
  mark(): number {
    return this.count;
  }

  keep(incidentId: string, mark: number, view: { version: number; json: string }): void {
    const invalidated = Math.max(this.forgottenUpTo, this.invalidatedAt.get(incidentId) ?? 0);
    if (invalidated > mark || view.json.length > this.maxChars / 16) return;
    this.drop(incidentId);
    this.views.set(incidentId, { ...view, at: this.now() });
    this.chars += view.json.length;
    for (const [oldest, held] of this.views) {
      if (this.chars <= this.maxChars) break;
      this.views.delete(oldest);
      this.chars -= held.json.length;
    }
  }

  private drop(incidentId: string): void {
    const held = this.views.get(incidentId);
    if (!held) return;
    this.views.delete(incidentId);
    this.chars -= held.json.length;
  }

  /** Forgets the older half of the invalidations; reads begun before them are no longer kept. */
  private forget(): void {
    let n = this.invalidatedAt.size / 2;
    for (const [incidentId, at] of this.invalidatedAt) {
      if (n-- <= 0) break;
      this.invalidatedAt.delete(incidentId);
      this.forgottenUpTo = Math.max(this.forgottenUpTo, at);
    }
  }
}

class CachedViewStore extends ViewStore {
  constructor(
    db: DynamoDBClient,
    table: string,
    private readonly cache: ViewCache,
  ) {
    super(db, table);
  }

  override async getSummaryJson(incidentId: string): Promise<{ version: number; json: string } | null> {
    const held = this.cache.get(incidentId);
    if (held) return { version: held.version, json: held.json };
    const mark = this.cache.mark();
    const stored = await super.getSummaryJson(incidentId);
    if (stored) this.cache.keep(incidentId, mark, stored);
    return stored;
  }

  // Views this thread saves itself (a projector or a rebuild run here, as tests do) drop the copy too.
  protected override async saveView(item: ViewItem, version: number): Promise<boolean> {
    try {
      return await super.saveView(item, version);
    } finally {
      this.cache.invalidate(item.incidentId?.S ?? "");
    }
  }

  protected override async saveViews(items: readonly ViewItem[]): Promise<readonly ViewItem[]> {
    try {
      return await super.saveViews(items);
    } finally {
      for (const item of items) this.cache.invalidate(item.incidentId?.S ?? "");
    }
  }
}
