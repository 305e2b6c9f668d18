import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../events/schemas.js";
import { parseEnvelope } from "../../events/validate.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { type AppendResult, EventStore } from "../../functions/store/event-store.js";
import { AP, casualties, opened, startArchive } from "../support/archive.js";

// One store, appends fired in the same tick: those that find the incident's lane busy wait, and
// the waiting ones are stored together as one group commit when it frees.
let archive: LocalServer;
let store: EventStore;
beforeAll(async () => {
  archive = await startArchive();
  store = new EventStore({ db: createDynamoClient(archive.dynamoEndpoint), tables: archive.tables });
});
afterAll(() => archive.close());

const envelope = (raw: unknown): Envelope => {
  const parsed = parseEnvelope(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
};
const append = (incidentId: string, raws: unknown[]) =>
  store.append({
    incidentId,
    envelopes: raws.map(envelope),
    recordedBy: "grouper",
    batched: raws.length > 1,
  });
const retracts = (targetEventId: string, eventId?: string) => ({
  ...(eventId ? { eventId } : {}),
  type: "ReportRetracted",
  source: AP,
  attributedTo: { name: "Editor" },
  data: { targetEventId, reason: "wrong figure" },
});
const toll = (value: number, eventId?: string) =>
  casualties({ killed: { value, qualifier: "exact" } }, `source-${value}`, eventId);

async function commitsOf(incidentId: string) {
  const commits = [];
  for await (const c of store.commits(incidentId)) commits.push(c);
  return commits;
}

/** Each answer's events are exactly the stored events at those versions. */
async function expectSlicesStored(incidentId: string, answers: AppendResult[]) {
  const stored = new Map<number, { eventId: string; hash: string }>();
  for await (const e of store.events(incidentId)) stored.set(e.version, e);
  for (const answer of answers) {
    for (const e of answer.events) {
      expect(stored.get(e.version)).toMatchObject({ eventId: e.eventId, hash: e.hash });
    }
    expect(answer.version).toBeGreaterThanOrEqual(answer.events[answer.events.length - 1]?.version ?? 0);
  }
}

describe("group commit in one process", () => {
  it("appends waiting in the lane become one commit, each answered with its own slice", async () => {
    const id = "group-basic";
    const answers = await Promise.all([
      append(id, [opened()]),
      append(id, [toll(1, "group-basic-1")]),
      append(id, [toll(2), toll(3, "group-basic-3")]),
      append(id, [toll(4)]),
    ]);
    expect(answers.every((a) => a.created)).toBe(true);
    const commits = await commitsOf(id);
    expect(commits.map((c) => c.events.length)).toEqual([1, 4]);
    expect(commits[1]?.appends).toEqual([2, 3, 5]);
    expect(answers.map((a) => a.events.map((e) => e.version))).toEqual([[1], [2], [3, 4], [5]]);
    // The answer names the incident's new head: the group's last version.
    expect(answers.slice(1).map((a) => a.version)).toEqual([5, 5, 5]);
    await expectSlicesStored(id, answers);
    expect(await store.verify(id)).toMatchObject({ ok: true, version: 5 });
  });

  it("never holds more than 25 events in one commit", async () => {
    const id = "group-cap";
    await append(id, [opened()]);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => append(id, [toll(10 * i), toll(10 * i + 1), toll(10 * i + 2)])),
    );
    const commits = await commitsOf(id);
    expect(commits.every((c) => c.events.length <= 25)).toBe(true);
    expect(commits.length).toBeLessThan(12);
    expect(commits.at(-1)?.lastVersion).toBe(37);
    await expectSlicesStored(id, answers);
  });

  it("a refused append is answered alone and never sinks the others", async () => {
    const id = "group-refused";
    await append(id, [opened()]);
    await append(id, [toll(1, "group-refused-taken")]);
    const settled = await Promise.allSettled([
      append(id, [toll(2)]),
      append(id, [toll(3, "group-ok-3")]),
      // Same id, different content: 409.
      append(id, [toll(99, "group-refused-taken")]),
      append(id, [toll(4)]),
      // A retraction of an event this incident does not hold: 422.
      append(id, [retracts("no-such-event-here")]),
      // An opening on an existing incident: 409.
      append(id, [opened()]),
      append(id, [toll(5, "group-ok-5"), toll(6)]),
    ]);
    const errors = settled.map((s) => (s.status === "rejected" ? s.reason.name : "ok"));
    expect(errors).toEqual([
      "ok",
      "ok",
      "EventIdConflictError",
      "ok",
      "ValidationError",
      "IncidentExistsError",
      "ok",
    ]);
    const stored = [];
    for await (const e of store.events(id)) stored.push(e.attributedTo?.name);
    expect(stored).toEqual([
      undefined,
      "source-1",
      "source-2",
      "source-3",
      "source-4",
      "source-5",
      "source-6",
    ]);
    const commits = await commitsOf(id);
    expect(commits.at(-1)?.appends?.length).toBeGreaterThan(1);
    await expectSlicesStored(
      id,
      settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : [])),
    );
  });

  it("an append judged after one that is refused is judged again without it", async () => {
    const id = "group-rejudged";
    const other = "group-rejudged-other";
    await append(other, [opened("group-rejudged-open")]);
    const settled = await Promise.allSettled([
      // Holds the lane while the next two wait: refused, the incident does not exist.
      append(id, [toll(1)]),
      // Its id is already an opening of another incident: refused at its claim.
      append(id, [opened("group-rejudged-open", { title: "other" })]),
      // Fine only after an opening: judged again, it is refused too — never stored as version 1.
      append(id, [toll(2)]),
    ]);
    expect(settled.map((s) => (s.status === "rejected" ? s.reason.name : "ok"))).toEqual([
      "IncidentMissingError",
      "EventIdConflictError",
      "IncidentMissingError",
    ]);
    expect(await commitsOf(id)).toEqual([]);
  });

  it("a member may name an event of a member before it in the same group", async () => {
    const id = "group-target";
    await append(id, [opened()]);
    const answers = await Promise.all([
      append(id, [toll(1)]),
      append(id, [toll(2, "group-target-2")]),
      append(id, [retracts("group-target-2")]),
    ]);
    expect(answers.map((a) => a.events[0]?.version)).toEqual([2, 3, 4]);
    // The retraction and its target went in one commit, as two slices.
    const last = (await commitsOf(id)).at(-1);
    expect(last?.events.map((e) => e.version)).toContain(3);
    expect(last?.appends).toContain(3);
    expect(last?.appends).toContain(4);
  });

  it("the same eventId posted twice at once in one process is stored once: 201 and its replay", async () => {
    const id = "group-twins";
    await append(id, [opened()]);
    const twin = toll(7, "group-twin-7");
    const answers = await Promise.all([
      append(id, [toll(1)]),
      append(id, [twin]),
      append(id, [toll(2)]),
      append(id, [twin]),
      append(id, [twin]),
    ]);
    expect(answers.map((a) => a.created)).toEqual([true, true, true, false, false]);
    expect(answers[3]).toEqual({ ...answers[1], created: false });
    const ids = [];
    for await (const e of store.events(id)) ids.push(e.eventId);
    expect(ids.filter((x) => x === "group-twin-7")).toHaveLength(1);
    expect(ids).toHaveLength(4);
  });

  it("a grouped mixed batch posted again replays within its own slice; a changed one is refused", async () => {
    const id = "group-replay";
    await append(id, [opened()]);
    const mixed = [toll(2, "group-replay-2"), toll(3)];
    const all = [toll(4, "group-replay-4"), toll(5, "group-replay-5")];
    const first = await Promise.all([
      append(id, [toll(1)]),
      append(id, [toll(10)]),
      append(id, mixed),
      append(id, all),
      append(id, [toll(11)]),
    ]);
    const commits = await commitsOf(id);
    // The mixed batch sits inside a group commit, between other appends.
    const holding = commits.find((c) => c.events.some((e) => e.eventId === "group-replay-2"));
    expect(holding?.events.length).toBeGreaterThan(mixed.length);

    const again = await append(id, mixed);
    expect(again).toEqual({ ...first[2], created: false });
    const allAgain = await append(id, all);
    expect(allAgain).toEqual({ ...first[3], created: false });
    // Same ids, but the event without one differs from the slice: not a replay, nothing stored.
    await expect(append(id, [toll(2, "group-replay-2"), toll(30)])).rejects.toMatchObject({
      name: "EventIdConflictError",
    });
    let count = 0;
    for await (const _ of store.events(id)) count += 1;
    expect(count).toBe(8);
  });
});
