import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, opened, post } from "../support/archive.js";
import { capture, startEvidenceArchive, upload } from "./evidence-kit.js";

let archive: Awaited<ReturnType<typeof startEvidenceArchive>>;
let base: string;
beforeAll(async () => {
  archive = await startEvidenceArchive();
  base = archive.server.url;
});
afterAll(() => archive.close());

describe("GET /incidents/{id}/evidence", () => {
  it("pages every capture, newest first, past the summary's 100", async () => {
    const id = "many-captures";
    expect((await post(base, id, opened())).status).toBe(201);
    const pages = Array.from({ length: 101 }, (_, i) => `<p>capture ${i}</p>`);
    for (const page of pages) expect([200, 201]).toContain((await upload(base, page)).status);
    for (let i = 0; i < pages.length; i += 25) {
      const events = pages
        .slice(i, i + 25)
        .map((page, k) => capture(page, { title: `Capture ${i + k}` }, `many-captures-${i + k}`));
      expect((await post(base, id, { events })).status).toBe(201);
    }
    const summary = (await call(base, "GET", `/incidents/${id}`)).body;
    expect(summary.evidence.count).toBe(101);
    expect(summary.evidence.latest).toHaveLength(100);

    const seen: { eventId: string; title: string }[] = [];
    let cursor: string | null = "";
    let requests = 0;
    while (cursor !== null) {
      const answer = await call(
        base,
        "GET",
        `/incidents/${id}/evidence?limit=40${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(answer.status).toBe(200);
      seen.push(...answer.body.items);
      cursor = answer.body.nextCursor;
      requests += 1;
    }
    expect(requests).toBe(3);
    expect(seen.map((r) => r.eventId)).toEqual(pages.map((_, i) => `many-captures-${100 - i}`));
    // The first hundred are the summary's rows, as it lists them.
    expect(seen.slice(0, 100)).toEqual(summary.evidence.latest);
  });

  it("marks a retracted capture, in the summary and on its page, and keeps listing it", async () => {
    const id = "many-captures";
    const retracted = await post(base, id, {
      type: "ReportRetracted",
      source: { publisher: "Associated Press" },
      attributedTo: { name: "Associated Press" },
      data: { targetEventId: "many-captures-100", reason: "the wrong page was captured" },
    });
    expect(retracted.status, JSON.stringify(retracted.body)).toBe(201);
    const summary = (await call(base, "GET", `/incidents/${id}`)).body;
    expect(summary.evidence.count).toBe(101);
    expect(summary.evidence.latest[0]).toMatchObject({ eventId: "many-captures-100", retracted: true });
    expect(summary.evidence.latest[1].retracted).toBeUndefined();
    const page = (await call(base, "GET", `/incidents/${id}/evidence?limit=2`)).body;
    expect(page.items).toEqual(summary.evidence.latest.slice(0, 2));
  });

  it("is 404 for an unknown incident and 400 for a cursor it did not give out", async () => {
    expect((await call(base, "GET", "/incidents/no-such-incident/evidence")).status).toBe(404);
    const bad = await call(base, "GET", "/incidents/many-captures/evidence?cursor=abc");
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("query.cursor");
  });
});
