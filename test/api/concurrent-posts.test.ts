import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { type Answer, call, casualties, opened, post, startArchive } from "../support/archive.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

interface Brief {
  eventId: string;
  version: number;
  hash: string;
}

async function allEvents(incidentId: string) {
  const page = await call(archive.url, "GET", `/incidents/${incidentId}/events?limit=500`);
  expect(page.status).toBe(200);
  return page.body.items as (Brief & { attributedTo?: { name: string } })[];
}

async function commitSizes(incidentId: string) {
  const sizes: number[] = [];
  for await (const c of archive.ledger.events.commits(incidentId)) sizes.push(c.events.length);
  return sizes;
}

const toll = (n: number, eventId?: string) =>
  casualties({ killed: { value: n, qualifier: "exact" } }, `writer-${n}`, eventId);

/** Each acknowledged answer's events are what /events holds at those versions, and its ETag is its version. */
function expectAnswersStored(answers: Answer[], events: Brief[]) {
  for (const a of answers) {
    const last = a.body.events[a.body.events.length - 1] as Brief;
    expect(a.body.version).toBe(last.version);
    expect(a.headers.get("etag")).toBe(`"${a.body.version}"`);
    for (const e of a.body.events as Brief[]) {
      const stored = events[e.version - 1];
      expect({ eventId: stored?.eventId, version: stored?.version, hash: stored?.hash }).toEqual(e);
    }
  }
}

describe("many concurrent posts to one incident over HTTP", () => {
  it("all acknowledged, gapless, each event once, each answer's slice is what /events holds", async () => {
    const id = "concurrent-http-burst";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    // 16 writers, 6 posts each, one at a time per writer: singles with and without ids, batches.
    const answers = (
      await Promise.all(
        Array.from({ length: 16 }, async (_, w) => {
          const mine: { answer: Answer; names: string[] }[] = [];
          for (let k = 0; k < 6; k++) {
            const n = w * 100 + k;
            const body =
              k % 3 === 2
                ? { events: [toll(n, `concurrent-http-${n}`), toll(n + 50)] }
                : toll(n, k % 3 === 0 ? `concurrent-http-${n}` : undefined);
            const names = k % 3 === 2 ? [`writer-${n}`, `writer-${n + 50}`] : [`writer-${n}`];
            mine.push({ answer: await post(archive.url, id, body), names });
          }
          return mine;
        }),
      )
    ).flat();
    expect(answers.map((a) => a.answer.status)).toEqual(Array(96).fill(201));

    const events = await allEvents(id);
    expect(events.map((e) => e.version)).toEqual(Array.from({ length: 129 }, (_, i) => i + 1));
    expect(new Set(events.map((e) => e.eventId)).size).toBe(129);
    expectAnswersStored(
      answers.map((a) => a.answer),
      events,
    );
    // Each answer's slice holds the events of its own request, in order.
    for (const { answer, names } of answers) {
      expect(answer.body.events.map((e: Brief) => events[e.version - 1]?.attributedTo?.name)).toEqual(names);
    }
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body).toMatchObject({
      ok: true,
      version: 129,
    });
    // One commit an append: never beyond 25 events in one commit.
    const sizes = await commitSizes(id);
    expect(sizes).toHaveLength(97);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(25);
    const summary = await call(archive.url, "GET", `/incidents/${id}?minVersion=129`);
    expect(summary.body.version).toBe(129);
  });

  it("a refused post in a burst is answered alone; the others are stored; a batch posted again replays", async () => {
    const id = "concurrent-http-mixed";
    await post(archive.url, id, opened());
    await post(archive.url, id, toll(1, "concurrent-http-taken"));
    const mixed = { events: [toll(2, "concurrent-http-mixed-2"), toll(3)] };
    const bodies = [
      toll(4),
      mixed,
      toll(99, "concurrent-http-taken"), // same id, other content: 409
      { events: [toll(5), toll(6, "concurrent-http-mixed-6")] },
      toll(7, "concurrent-http-7"),
    ];
    const answers = await Promise.all(
      [...bodies, ...bodies.slice(0, 2), toll(8)].map((b) => post(archive.url, id, b)),
    );
    expect(answers[2]?.status).toBe(409);
    expect(answers[2]?.headers.get("content-type")).toContain("application/problem+json");
    const stored = answers.filter((a) => a.status === 201);
    // toll(4) posted twice without an id is two events; the mixed batch posted twice at once is stored once.
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201, 201, 201, 201, 201, 201, 409]);
    const events = await allEvents(id);
    expect(events).toHaveLength(2 + 1 + 2 + 2 + 1 + 1 + 1);
    expectAnswersStored(stored, events);

    // The mixed batch posted again: its first answer.
    const first = answers.find(
      (a) => a.status === 201 && a.body.events[0].eventId === "concurrent-http-mixed-2",
    );
    const again = await post(archive.url, id, mixed);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first?.body);
    expect(await allEvents(id)).toHaveLength(events.length);
  });
});
