import { describe, expect, it } from "vitest";
import { EMPTY_HEAD, sealEvents } from "../../events/stored-event.js";
import { casualties, exact } from "../../events/test-kit.js";
import { carriedCommit, commitsContinuing } from "./carried-commits.js";
import { type Commit, commitToItem } from "./commit-item.js";

const INCIDENT = "carried-unit-2024";
const ctx = {
  incidentId: INCIDENT,
  recordedBy: "unit",
  now: "2024-04-08T10:00:00.000Z",
  newEventId: (v: number) => `ev-unit-${v}`,
};
const envelope = (n: number) => casualties(`carried-unit-report-${n}`, `Source ${n}`, { killed: exact(n) });

/** Two commits of one incident (versions 1–2 and 3), sealed as the store seals them. */
function twoCommits(): [Commit, Commit] {
  const first = sealEvents(EMPTY_HEAD, [envelope(1), envelope(2)], ctx);
  const second = sealEvents(
    { version: 2, hash: first[1]?.hash ?? "", recordedAt: ctx.now },
    [envelope(3)],
    ctx,
  );
  const commit = (events: typeof first): Commit => ({
    incidentId: INCIDENT,
    version: events[0]?.version ?? 0,
    lastVersion: events.at(-1)?.version ?? 0,
    events,
    token: "t",
  });
  return [commit(first), commit(second)];
}

describe("carried commits, checked once for both the projector and the sequencer", () => {
  it("given one stored item handed to both, then it is decoded once: both get the same commit", () => {
    const [a] = twoCommits();
    const item = commitToItem(a);
    const once = carriedCommit(item, INCIDENT);
    expect(once).not.toBeNull();
    expect(carriedCommit(item, INCIDENT)).toBe(once);
    expect(carriedCommit(item, "another-incident-2024")).toBeNull();
  });

  it("given a commit already checked from one head, when it is offered after another head, then it is checked again and refused", () => {
    const [a, b] = twoCommits();
    const head = { version: 0, hash: EMPTY_HEAD.hash };
    expect(commitsContinuing(INCIDENT, head, [a, b])).toEqual([a, b]);
    // Same objects, a head whose hash is not what b follows: the earlier check must not vouch for it.
    expect(commitsContinuing(INCIDENT, { version: 2, hash: "f".repeat(64) }, [b])).toBeNull();
    expect(commitsContinuing(INCIDENT, { version: 2, hash: a.events[1]?.hash ?? "" }, [b])).toEqual([b]);
  });

  it("given an event edited after sealing, then its commit does not continue the chain", () => {
    const [a] = twoCommits();
    const edited = { ...a, events: a.events.map((e, i) => (i === 1 ? { ...e, data: { edited: true } } : e)) };
    expect(commitsContinuing(INCIDENT, { version: 0, hash: EMPTY_HEAD.hash }, [edited])).toBeNull();
  });
});
