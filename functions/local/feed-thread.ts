import { Worker } from "node:worker_threads";
import type { Logger } from "../log.js";
import type { Item } from "../store/commit-item.js";
import type { FeedWorkerData, FromFeed, SavedView, ToFeed } from "./feed-protocol.js";

type Ask = ToFeed extends infer T ? (T extends { id: number } ? Omit<T, "id"> : never) : never;

/**
 * The request thread's handle on the feed thread (feed-worker.ts): starts it, tells it of
 * commits, and keeps, per incident, how many commits it told so that a read can wait for
 * exactly the projections of the writes before it (read-your-writes across the threads).
 */
export class FeedThread {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly replies = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  /** Commits told per incident since the feed thread last reported it idle. */
  private readonly told = new Map<string, number>();
  private readonly settleWaiters = new Map<string, { through: number; resolve(): void }[]>();
  private closing = false;
  private dead: Error | null = null;
  readonly ready: Promise<Extract<FromFeed, { type: "ready" }>>;

  constructor(
    data: FeedWorkerData,
    private readonly log: Logger,
    /** The feed thread ended without being asked to: nothing would be projected or sequenced. */
    onDeath: (error: Error) => void,
    /**
     * A pass of this incident's projection ended, with the view it saved if it saved one: told
     * before the reads that wait for it go on.
     */
    private readonly onProjected: (incidentId: string, view?: SavedView) => void = () => {},
  ) {
    this.worker = new Worker(new URL("./feed-worker-entry.mjs", import.meta.url), { workerData: data });
    let started = false;
    this.ready = new Promise((resolve, reject) => {
      this.worker.on("message", (message: FromFeed) => {
        if (message.type === "ready") {
          started = true;
          resolve(message);
        } else this.receive(message);
      });
      const died = (error: Error) => {
        if (this.dead) return;
        this.dead = error;
        for (const { reject: fail } of this.replies.values()) fail(error);
        this.replies.clear();
        // No projection will come: reads go ahead on what is stored rather than hang.
        for (const waiters of this.settleWaiters.values()) for (const w of waiters) w.resolve();
        this.settleWaiters.clear();
        if (!started) reject(error);
        else if (!this.closing) onDeath(error);
      };
      this.worker.on("error", died);
      this.worker.on("exit", (code) => died(new Error(`the feed thread exited (code ${code})`)));
    });
  }

  commit(item: Item): void {
    const incidentId = item.incidentId?.S ?? "";
    this.told.set(incidentId, (this.told.get(incidentId) ?? 0) + 1);
    this.send({ type: "commit", item });
  }

  /** Resolves once every commit of this incident told so far is projected. */
  settled(incidentId: string): Promise<void> {
    const through = this.told.get(incidentId);
    if (through === undefined || this.dead) return Promise.resolve();
    const settledNow = new Promise<void>((resolve) =>
      this.settleWaiters.set(incidentId, [
        ...(this.settleWaiters.get(incidentId) ?? []),
        { through, resolve },
      ]),
    );
    this.send({ type: "hurry", incidentId });
    return settledNow;
  }

  ask(message: Ask): Promise<unknown> {
    const id = this.nextId++;
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.replies.set(id, { resolve, reject });
      this.send({ ...message, id } as ToFeed);
    });
  }

  async close(): Promise<void> {
    if (this.dead) return;
    await this.ask({ type: "close" });
    this.closing = true;
    await this.worker.terminate();
  }

  /** Ends the feed thread at once, as a crash would (tests of what the request thread does then). */
  kill(): Promise<number> {
    return this.worker.terminate();
  }

  private send(message: ToFeed): void {
    this.worker.postMessage(message);
  }

  private receive(message: FromFeed): void {
    switch (message.type) {
      case "settled": {
        const id = message.incidentId;
        this.onProjected(id, message.view);
        const waiters = this.settleWaiters.get(id) ?? [];
        const left = waiters.filter((w) => w.through > message.through);
        for (const w of waiters) if (w.through <= message.through) w.resolve();
        if (message.idle) {
          // Both sides count again from 0: re-base what was told since, and who waits for it.
          const since = (this.told.get(id) ?? 0) - message.through;
          if (since > 0) this.told.set(id, since);
          else this.told.delete(id);
          for (const w of left) w.through -= message.through;
        }
        if (left.length > 0) this.settleWaiters.set(id, left);
        else this.settleWaiters.delete(id);
        return;
      }
      case "reply": {
        const pending = this.replies.get(message.id);
        this.replies.delete(message.id);
        if (message.error !== undefined) pending?.reject(new Error(message.error));
        else pending?.resolve(message.value);
        return;
      }
      case "log":
        this.log[message.level](message.message, message.fields);
        return;
      case "ready":
        return;
    }
  }
}
