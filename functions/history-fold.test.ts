import { describe, expect, it } from "vitest";
import type { StoredEvent } from "../events/stored-event.js";
import { fold } from "../events/summary.js";
import { longHistory } from "../test/support/long-history.js";
import { foldWithStore } from "./history-fold.js";

/** The store a fold may read back from, over the events themselves. */
const storeOf = (events: readonly StoredEvent[]) => ({
  eventsBetween: async (_: string, after: number, last: number) =>
    events.filter((e) => e.version > after && e.version <= last),
  findEvent: async (_: string, eventId: string) => events.find((e) => e.eventId === eventId) ?? null,
});

describe("a fold that runs long", () => {
  it("given thousands of events, when they are folded, then the event loop gets turns before the fold ends, and the state is the plain fold's", async () => {
    const events = longHistory("fold-turns", 3_000, 7);
    let turns = 0;
    let folding = true;
    const tick = () => {
      if (!folding) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const state = await foldWithStore(storeOf(events), "fold-turns", events);
    folding = false;

    expect(turns, "setImmediate callbacks ran while it folded").toBeGreaterThan(1);
    expect(state).toEqual(fold("fold-turns", events));
  });
});
