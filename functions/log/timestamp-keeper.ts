import { parseNote } from "../../events/transparency/note.js";
import {
  nextTimestamp,
  TIMESTAMP_MIN_INTERVAL_MS,
  type TimestampDecision,
  waitingSinceAfterCheckpoint,
  waitingSinceAfterToken,
} from "../../events/transparency/timestamp-schedule.js";
import type { Logger } from "../logger.js";
import type { StoredCheckpoint } from "./log-store.js";
import type { TimestampAuthority } from "./timestamp-authority.js";
import type { TimestampStore } from "./timestamp-store.js";

/** What AWS's time-stamping schedule invokes the sequencer with (infra/transparency-log.ts). */
export const TIMESTAMP_TICK = { source: "incident-ledger", "detail-type": "timestamp-checkpoint" } as const;

export interface TimestampKeeperOptions {
  store: TimestampStore;
  /** The newest signed checkpoint in the store (read when none was offered). */
  latestCheckpoint: () => Promise<StoredCheckpoint | null>;
  authority: TimestampAuthority;
  log: Logger;
  now?: () => number;
  /** Overrides the one-a-minute rule (tests of the whole archive). */
  minIntervalMs?: number;
}

/**
 * Obtains RFC 3161 tokens over the log's checkpoints, apart from the sequencer's passes: a
 * checkpoint is offered and the call returns at once; the request runs on its own (with the
 * client's timeout), so a TSA that is slow or down delays tokens and never an append or a
 * checkpoint. When to ask is the pure rule of events/transparency/timestamp-schedule.ts; the
 * one-a-minute lease is kept in the store, so concurrent sequencers (AWS) share it.
 *
 * In-process (`offer`): a timer asks again when the rule allows. In AWS (`tick`): the schedule
 * invokes one step a minute, each reading what it needs from the store.
 */
export class TimestampKeeper {
  private newest: StoredCheckpoint | null = null;
  /** What this process knows of the store (null: read it at the next step). */
  private known: {
    tokenSize: number;
    requestedAt: number | null;
    waitingSince: number | null;
    saved: number | null;
  } | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly stop = new AbortController();
  private closed = false;
  private last: TimestampDecision | null = null;
  private readonly now: () => number;
  private readonly interval: number;

  constructor(private readonly options: TimestampKeeperOptions) {
    this.now = options.now ?? Date.now;
    this.interval = options.minIntervalMs ?? TIMESTAMP_MIN_INTERVAL_MS;
  }

  get url(): string {
    return this.options.authority.url;
  }

  /** A checkpoint was stored: a token over it is asked for when the rule allows. Returns at once. */
  offer(checkpoint: StoredCheckpoint): void {
    if (this.closed) return;
    if (!this.newest || checkpoint.size > this.newest.size) this.newest = checkpoint;
    this.kick();
  }

  /**
   * One step from what the store holds (AWS's schedule): asks if the rule allows, and resolves
   * once the answer is stored or given up. Returns how long the newest checkpoint has waited.
   */
  async tick(): Promise<{ delaySeconds: number; overdue: boolean }> {
    await this.running;
    this.known = null;
    this.newest = null;
    await this.step(false);
    return this.delay();
  }

  /** How long a signed checkpoint has waited for a token (0: none waits), as of the last step. */
  delay(): { delaySeconds: number; overdue: boolean } {
    const waiting = this.known?.waitingSince ?? null;
    return {
      delaySeconds: waiting === null ? 0 : Math.max(0, this.now() - waiting) / 1000,
      overdue: this.last?.overdue ?? false,
    };
  }

  /** Resolves when no step is running (a token asked for is stored, or given up). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops: no more timers, and a request in flight is abandoned. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stop.abort();
    await this.idle();
  }

  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.step(true);
        } catch (error) {
          this.options.log.error("time-stamping step failed; retried later", { error: String(error) });
          this.schedule(this.now() + this.interval);
        }
      } while (this.again && !this.closed);
    })().finally(() => {
      this.running = null;
    });
  }

  private schedule(at: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.kick();
      },
      Math.max(0, at - this.now()),
    );
    // A waiting token never keeps a process alive.
    this.timer.unref?.();
  }

  private async load() {
    const [latest, state] = await Promise.all([this.options.store.latest(), this.options.store.state()]);
    return { tokenSize: latest?.treeSize ?? 0, ...state, saved: state.waitingSince };
  }

  private async step(timers: boolean): Promise<void> {
    const { store, authority, log } = this.options;
    const checkpoint = this.newest ?? (await this.options.latestCheckpoint());
    this.known ??= await this.load();
    const known = this.known;
    const checkpointSize = checkpoint?.size ?? 0;
    const now = this.now();
    known.waitingSince = waitingSinceAfterCheckpoint({
      now,
      checkpointSize,
      tokenSize: known.tokenSize,
      waitingSince: known.waitingSince,
    });
    const decision = nextTimestamp({
      now,
      checkpointSize,
      tokenSize: known.tokenSize,
      waitingSince: known.waitingSince,
      lastRequestAt: known.requestedAt,
      inFlight: false,
      minIntervalMs: this.interval,
    });
    this.last = decision;
    if (decision.action !== "request" || !checkpoint) {
      if (known.waitingSince !== known.saved) {
        await store.setWaitingSince(known.waitingSince);
        known.saved = known.waitingSince;
      }
      if (decision.action === "wait" && decision.at !== null && timers) this.schedule(decision.at);
      if (decision.overdue)
        log.warn("no time-stamp token for the newest checkpoint", { delaySeconds: decision.delayMs / 1000 });
      return;
    }
    if (!(await store.claimRequest(now, this.interval, known.waitingSince))) {
      // Another sequencer asked within the minute: wait for its lease to pass.
      const state = await store.state();
      known.requestedAt = state.requestedAt ?? now;
      if (timers) this.schedule(known.requestedAt + this.interval);
      return;
    }
    known.requestedAt = now;
    known.saved = known.saved ?? known.waitingSince;
    const body = parseNote(checkpoint.text).text;
    try {
      const stamp = await authority.stamp(body, this.stop.signal);
      await store.put({
        treeSize: checkpoint.size,
        checkpoint: body,
        genTime: stamp.genTime.toISOString(),
        tsa: authority.url,
        token: stamp.token,
      });
      known.tokenSize = Math.max(known.tokenSize, checkpoint.size);
      known.waitingSince = waitingSinceAfterToken({
        tokenSize: known.tokenSize,
        requestedAt: now,
        checkpointSize: Math.max(checkpointSize, this.newest?.size ?? 0),
      });
      await store.setWaitingSince(known.waitingSince);
      known.saved = known.waitingSince;
      log.debug("checkpoint time-stamped", { size: checkpoint.size, genTime: stamp.genTime.toISOString() });
    } catch (error) {
      if (this.closed) return;
      log.warn("time-stamp request failed; asked again within a minute", {
        tsa: authority.url,
        size: checkpoint.size,
        error: String(error),
      });
    }
    // The rule decides again: a newer checkpoint waits for the next minute.
    if (timers) this.again = true;
  }
}
