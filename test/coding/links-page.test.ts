import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, linked, opened, post, startArchive } from "../support/archive.js";

let archive: LocalServer;
const HUB = "links-page-hub";
const others = Array.from({ length: 102 }, (_, i) => `links-page-${String(i).padStart(3, "0")}`);

beforeAll(async () => {
  archive = await startArchive();
  for (const id of [HUB, "links-page-from", ...others])
    expect((await post(archive.url, id, opened())).status).toBe(201);
  // More links than the state keeps (100), one of them replaced later, and one posted elsewhere.
  for (let i = 0; i < others.length; i += 25) {
    const events = others.slice(i, i + 25).map((id) => linked(id, "related"));
    expect((await post(archive.url, HUB, { events })).status).toBe(201);
  }
  expect((await post(archive.url, HUB, linked(others[0] as string, "part-of"))).status).toBe(201);
  expect((await post(archive.url, "links-page-from", linked(HUB, "same-event"))).status).toBe(201);
  await archive.stream.idle();
});
afterAll(() => archive.close());

type Row = { incidentId: string; relation: string; direction: string; recordedAt: string };

describe("GET /incidents/{id}/links", () => {
  it("pages every current link, both directions, past the summary's 100, the most recent first", async () => {
    const summary = (await call(archive.url, "GET", `/incidents/${HUB}`)).body;
    // The fold counts a link to an incident its kept 100 no longer hold as a new one (it cannot
    // tell it from one never linked): the replaced link is counted twice there, not on the page.
    expect(summary.links.count).toBe(104);
    expect(summary.links.items).toHaveLength(100);
    const rows: Row[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const answer = await call(
        archive.url,
        "GET",
        `/incidents/${HUB}/links?limit=40${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(answer.status).toBe(200);
      rows.push(...answer.body.items);
      cursor = answer.body.nextCursor;
    }
    expect(rows).toHaveLength(103);
    expect(new Set(rows.map((r) => r.incidentId)).size).toBe(103);
    expect(rows.slice(0, 100)).toEqual(summary.links.items);
    // The replaced link shows its latest relation once; the one posted elsewhere, as incoming.
    expect(rows.filter((r) => r.incidentId === others[0])).toEqual([
      expect.objectContaining({ relation: "part-of", direction: "outgoing" }),
    ]);
    expect(rows.find((r) => r.incidentId === "links-page-from")).toMatchObject({
      relation: "same-event",
      direction: "incoming",
    });
    // The oldest two links, which the state no longer keeps, are there.
    expect(rows.slice(-2).map((r) => r.incidentId)).toEqual([others[1], others[2]].sort().reverse());
    const times = rows.map((r) => r.recordedAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("is 404 for an unknown incident", async () => {
    expect((await call(archive.url, "GET", "/incidents/no-such-incident/links")).status).toBe(404);
  });
});
