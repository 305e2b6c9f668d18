/**
 * When the log asks its RFC 3161 time-stamping authority for a token (CONTRACT.md "Trusted
 * time"): over the newest signed checkpoint, at most one request a minute, and never more than
 * five minutes without a token while the log grows. Pure: the caller brings the clock and what
 * it knows of the store.
 */

/** No two requests to the TSA start closer than this (a TSA's terms usually bound the rate). */
export const TIMESTAMP_MIN_INTERVAL_MS = 60_000;
/** A checkpoint left without a token longer than this is overdue: the alarm's threshold. */
export const TIMESTAMP_MAX_GAP_MS = 300_000;

export interface TimestampSituation {
  now: number;
  /** The newest signed checkpoint's tree size (0: none yet, or the empty tree). */
  checkpointSize: number;
  /** The tree size the newest stored token covers (0: none yet). */
  tokenSize: number;
  /** Since when a signed checkpoint has been waiting for a token (null: none is). */
  waitingSince: number | null;
  /** When the last request to the TSA started, whatever became of it (null: never). */
  lastRequestAt: number | null;
  /** A request is in flight (its end decides again). */
  inFlight: boolean;
  /** Overrides TIMESTAMP_MIN_INTERVAL_MS (tests of the whole archive, which cannot wait minutes). */
  minIntervalMs?: number;
}

export type TimestampDecision =
  /** Ask now, for the token over the checkpoint of this tree size. */
  | { action: "request"; treeSize: number; delayMs: number; overdue: boolean }
  /** A checkpoint waits; ask again at `at` (null: when the request in flight ends). */
  | { action: "wait"; at: number | null; delayMs: number; overdue: boolean }
  /** Every signed checkpoint is covered: nothing to ask. */
  | { action: "idle"; delayMs: 0; overdue: false };

/** Since when a checkpoint waits, once one of `checkpointSize` leaves is signed (null: none waits). */
export function waitingSinceAfterCheckpoint(
  situation: Pick<TimestampSituation, "now" | "checkpointSize" | "tokenSize" | "waitingSince">,
): number | null {
  if (situation.checkpointSize <= situation.tokenSize) return null;
  return situation.waitingSince ?? situation.now;
}

/**
 * Since when a checkpoint waits once a token over `tokenSize` is stored: checkpoints signed
 * after the request started (those above the size it asked for) wait since that start.
 */
export function waitingSinceAfterToken(a: {
  tokenSize: number;
  requestedAt: number;
  checkpointSize: number;
}): number | null {
  return a.checkpointSize > a.tokenSize ? a.requestedAt : null;
}

export function nextTimestamp(s: TimestampSituation): TimestampDecision {
  const waitingSince = waitingSinceAfterCheckpoint(s);
  if (waitingSince === null) return { action: "idle", delayMs: 0, overdue: false };
  const delayMs = Math.max(0, s.now - waitingSince);
  const overdue = delayMs > TIMESTAMP_MAX_GAP_MS;
  if (s.inFlight) return { action: "wait", at: null, delayMs, overdue };
  const interval = s.minIntervalMs ?? TIMESTAMP_MIN_INTERVAL_MS;
  if (s.lastRequestAt !== null && s.now < s.lastRequestAt + interval) {
    return { action: "wait", at: s.lastRequestAt + interval, delayMs, overdue };
  }
  return { action: "request", treeSize: s.checkpointSize, delayMs, overdue };
}
