import { BATCH_WRITE_LIMIT } from "../store/dynamo-idioms.js";
import type { PackedSnapshot, PackedView, ViewStore } from "../store/view-store.js";

export interface ViewBatchEvents {
  /** What the views vouch for besides their snapshots (the editorial index), written before them. */
  beforeWrite?(views: readonly PackedView[]): Promise<void>;
  written(views: readonly PackedView[]): void;
  failed(views: readonly PackedView[], error: unknown): void;
}

/**
 * Writes the views a rebuild folds from nothing, and their snapshots, 25 to a BatchWriteItem
 * while the folds go on, with at most `inFlight` writes outstanding (the folds wait beyond
 * that, so memory stays bounded). As the projector does, a view is written only after every
 * snapshot up to its version and what `beforeWrite` writes: a view at version N vouches that
 * they are there, and a batch whose part failed is not written, so a rerun folds it again. Snapshots go
 * out in batches of their own (a view batch waits for every snapshot batch sent before it),
 * so a long incident's snapshots are not held until its view is done.
 */
export class ViewBatches {
  private views: PackedView[] = [];
  private snapshots: PackedSnapshot[] = [];
  /** Every snapshot batch sent so far: it rejects if any of them failed. */
  private snapshotsSent: Promise<unknown> = Promise.resolve();
  private readonly writing = new Set<Promise<unknown>>();

  constructor(
    private readonly store: ViewStore,
    private readonly on: ViewBatchEvents,
    private readonly inFlight = 2,
  ) {}

  async addSnapshot(snapshot: PackedSnapshot): Promise<void> {
    this.snapshots.push(snapshot);
    if (this.snapshots.length >= BATCH_WRITE_LIMIT) this.sendSnapshots();
    await this.room();
  }

  async addView(view: PackedView): Promise<void> {
    this.views.push(view);
    if (this.views.length >= BATCH_WRITE_LIMIT) this.sendViews();
    await this.room();
  }

  /** Sends what is pending and waits for every write. */
  async close(): Promise<void> {
    this.sendViews();
    await Promise.all(this.writing);
  }

  /** Sends every pending snapshot, 25 to a batch (synchronously: nothing comes in between). */
  private sendSnapshots(): void {
    while (this.snapshots.length > 0) {
      const sent = this.store.saveSnapshots(this.snapshots.splice(0, BATCH_WRITE_LIMIT));
      this.snapshotsSent = Promise.all([this.snapshotsSent, sent]);
      // Its failure is met by the view batches that wait for it; this only keeps Node from
      // calling it unhandled before they do.
      this.snapshotsSent.catch(() => {});
      this.track(sent.catch(() => {}));
    }
  }

  /**
   * Sends the pending views, 25 to a batch, each after every snapshot sent so far: whatever
   * snapshot a view of the batch has was handed over before it, so it is in one of those.
   */
  private sendViews(): void {
    this.sendSnapshots();
    while (this.views.length > 0) {
      const batch = this.views.splice(0, BATCH_WRITE_LIMIT);
      this.track(
        this.snapshotsSent
          .then(() => this.on.beforeWrite?.(batch))
          .then(() => this.store.saveNew(batch))
          .then(
            () => this.on.written(batch),
            (error) => this.on.failed(batch, error),
          ),
      );
    }
  }

  private track(write: Promise<unknown>): void {
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  /** Waits while too many writes are outstanding: the folds hold back instead of piling up. */
  async room(): Promise<void> {
    while (this.writing.size >= this.inFlight) await Promise.race(this.writing);
  }
}
