import { describe, expect, it } from "vitest";
import {
  nextTimestamp,
  TIMESTAMP_MAX_GAP_MS,
  TIMESTAMP_MIN_INTERVAL_MS,
  type TimestampDecision,
  type TimestampSituation,
  waitingSinceAfterCheckpoint,
  waitingSinceAfterToken,
} from "./timestamp-schedule.js";

const MINUTE = 60_000;
const T0 = Date.parse("2026-04-08T10:00:00Z");

const situation = (s: Partial<TimestampSituation>): TimestampSituation => ({
  now: T0,
  checkpointSize: 0,
  tokenSize: 0,
  waitingSince: null,
  lastRequestAt: null,
  inFlight: false,
  ...s,
});

/**
 * A log that signs a checkpoint every `everyMs`, one leaf more each time, driven by the rule
 * with an injected clock; the TSA answers each request after `answerMs`, or never when `down`.
 */
function simulate(o: { untilMs: number; everyMs: number; answerMs: number; down?: (at: number) => boolean }) {
  const requests: { at: number; treeSize: number }[] = [];
  const tokens: { at: number; treeSize: number }[] = [];
  let checkpointSize = 0;
  let tokenSize = 0;
  let waitingSince: number | null = null;
  let lastRequestAt: number | null = null;
  let inFlight: { until: number; treeSize: number; fails: boolean } | null = null;
  let maxUncoveredMs = 0;
  for (let now = T0; now <= T0 + o.untilMs; now += 1_000) {
    if (inFlight && now >= inFlight.until) {
      if (!inFlight.fails) {
        tokenSize = Math.max(tokenSize, inFlight.treeSize);
        tokens.push({ at: now, treeSize: inFlight.treeSize });
        waitingSince = waitingSinceAfterToken({
          tokenSize,
          requestedAt: lastRequestAt as number,
          checkpointSize,
        });
      }
      inFlight = null;
    }
    if ((now - T0) % o.everyMs === 0) {
      checkpointSize += 1;
      waitingSince = waitingSinceAfterCheckpoint({ now, checkpointSize, tokenSize, waitingSince });
    }
    if (waitingSince !== null) maxUncoveredMs = Math.max(maxUncoveredMs, now - waitingSince);
    const d = nextTimestamp({
      now,
      checkpointSize,
      tokenSize,
      waitingSince,
      lastRequestAt,
      inFlight: !!inFlight,
    });
    if (d.action === "request") {
      requests.push({ at: now, treeSize: d.treeSize });
      lastRequestAt = now;
      inFlight = { until: now + o.answerMs, treeSize: d.treeSize, fails: o.down?.(now) ?? false };
    }
  }
  return { requests, tokens, maxUncoveredMs };
}

describe("when the log asks its TSA for a token", () => {
  it("given a first checkpoint and no token, when it is signed, then a token over it is asked for at once", () => {
    const d = nextTimestamp(situation({ checkpointSize: 5, waitingSince: T0 }));
    expect(d).toEqual<TimestampDecision>({ action: "request", treeSize: 5, delayMs: 0, overdue: false });
  });

  it("given every checkpoint covered (or only the empty tree), then nothing is asked", () => {
    expect(nextTimestamp(situation({ checkpointSize: 7, tokenSize: 7 })).action).toBe("idle");
    expect(nextTimestamp(situation({ checkpointSize: 0 })).action).toBe("idle");
  });

  it("given a request 20 s ago, when a new checkpoint is signed, then it waits until a minute after that request", () => {
    const d = nextTimestamp(
      situation({
        now: T0 + 20_000,
        checkpointSize: 9,
        tokenSize: 5,
        waitingSince: T0 + 20_000,
        lastRequestAt: T0,
      }),
    );
    expect(d).toEqual<TimestampDecision>({ action: "wait", at: T0 + MINUTE, delayMs: 0, overdue: false });
    const later = nextTimestamp(
      situation({
        now: T0 + MINUTE,
        checkpointSize: 9,
        tokenSize: 5,
        waitingSince: T0 + 20_000,
        lastRequestAt: T0,
      }),
    );
    expect(later).toMatchObject({ action: "request", treeSize: 9, delayMs: 40_000 });
  });

  it("given a request in flight, then no second one starts, however long the first takes", () => {
    const d = nextTimestamp(
      situation({
        now: T0 + 10 * MINUTE,
        checkpointSize: 9,
        waitingSince: T0,
        lastRequestAt: T0,
        inFlight: true,
      }),
    );
    expect(d).toMatchObject({ action: "wait", at: null, overdue: true });
  });

  it("given the newest checkpoint uncovered for more than five minutes, then the decision says overdue (the metric's alarm)", () => {
    const at = (now: number) =>
      nextTimestamp(situation({ now, checkpointSize: 3, waitingSince: T0, lastRequestAt: now - 1_000 }));
    expect(at(T0 + TIMESTAMP_MAX_GAP_MS).overdue).toBe(false);
    expect(at(T0 + TIMESTAMP_MAX_GAP_MS + 1).overdue).toBe(true);
  });

  it("given waiting bookkeeping, then a token clears the wait unless checkpoints were signed after its request", () => {
    expect(
      waitingSinceAfterCheckpoint({ now: T0 + 5, checkpointSize: 4, tokenSize: 2, waitingSince: T0 }),
    ).toBe(T0);
    expect(
      waitingSinceAfterCheckpoint({ now: T0 + 5, checkpointSize: 4, tokenSize: 2, waitingSince: null }),
    ).toBe(T0 + 5);
    expect(waitingSinceAfterToken({ tokenSize: 4, requestedAt: T0, checkpointSize: 4 })).toBeNull();
    expect(waitingSinceAfterToken({ tokenSize: 4, requestedAt: T0, checkpointSize: 6 })).toBe(T0);
  });

  it("given a log signing a checkpoint every 2 s for an hour, then at most one request a minute and never five minutes without a token", () => {
    const { requests, tokens, maxUncoveredMs } = simulate({
      untilMs: 60 * MINUTE,
      everyMs: 2_000,
      answerMs: 1_000,
    });
    for (let i = 1; i < requests.length; i++) {
      expect((requests[i]?.at ?? 0) - (requests[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(
        TIMESTAMP_MIN_INTERVAL_MS,
      );
    }
    // One a minute, not fewer: the rule asks as soon as it may.
    expect(requests.length).toBeGreaterThanOrEqual(60);
    // Every request is answered (the last one may still be in flight when the hour ends).
    expect(tokens.length).toBeGreaterThanOrEqual(requests.length - 1);
    expect(maxUncoveredMs).toBeLessThanOrEqual(TIMESTAMP_MAX_GAP_MS);
    // Each token is over the newest checkpoint at its request.
    expect(requests.every((r) => r.treeSize === 1 + Math.floor((r.at - T0) / 2_000))).toBe(true);
  });

  it("given a TSA down for ten minutes, then requests stay one a minute, the wait shows as overdue, and the first answer after clears it", () => {
    const down = (at: number) => at >= T0 + 5 * MINUTE && at < T0 + 15 * MINUTE;
    const { requests, tokens, maxUncoveredMs } = simulate({
      untilMs: 30 * MINUTE,
      everyMs: 5_000,
      answerMs: 2_000,
      down,
    });
    for (let i = 1; i < requests.length; i++) {
      expect((requests[i]?.at ?? 0) - (requests[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(
        TIMESTAMP_MIN_INTERVAL_MS,
      );
    }
    expect(maxUncoveredMs).toBeGreaterThan(TIMESTAMP_MAX_GAP_MS);
    const firstAfter = tokens.find((t) => t.at >= T0 + 15 * MINUTE);
    expect(firstAfter && firstAfter.at - (T0 + 15 * MINUTE)).toBeLessThanOrEqual(MINUTE + 2_000);
  });

  it("given a slow TSA (40 s an answer), then the next request still waits a full minute from the last one's start", () => {
    const { requests } = simulate({ untilMs: 10 * MINUTE, everyMs: 1_000, answerMs: 40_000 });
    const gaps = requests.slice(1).map((r, i) => r.at - (requests[i]?.at ?? 0));
    expect(gaps.every((g) => g === TIMESTAMP_MIN_INTERVAL_MS)).toBe(true);
  });
});
