import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GRADE_PAGES } from "../../functions/incident-reader.js";
import type { LocalServer } from "../../functions/local/server.js";
import { startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { AP, call, casualties, opened, post, TOKEN } from "../support/archive.js";

const WRITER_TOKEN = "writer-only-token-0123456789";
let archive: LocalServer;

beforeAll(async () => {
  archive = await startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    log: silentLogger,
    writer: "test-editor",
    users: [{ name: "wendy", token: WRITER_TOKEN, roles: ["writer"] }],
  });
});
afterAll(() => archive.close());

const editor = (type: string, data: Record<string, unknown>, eventId?: string) => ({
  ...(eventId ? { eventId } : {}),
  type,
  source: { publisher: "incident-ledger" },
  attributedTo: { name: "Editors' desk" },
  data,
});
const events = async (id: string) => (await call(archive.url, "GET", `/incidents/${id}/events`)).body.items;
const summary = async (id: string, query = "") => {
  await archive.stream.idle();
  return (await call(archive.url, "GET", `/incidents/${id}${query}`)).body;
};

describe("precision and revision", () => {
  it("given an opening with precision, when it is revised by an editor, then the summary shows the current details and the revising version", async () => {
    const id = "coding-revise";
    expect(
      (
        await post(
          archive.url,
          id,
          opened("coding-revise-open", {
            occurredOn: "2022-04-08",
            timePrecision: "week",
            location: { name: "Kramatorsk", country: "UA", precision: "adm2" },
          }),
        )
      ).status,
    ).toBe(201);
    const revised = await post(
      archive.url,
      id,
      editor("IncidentRevised", {
        title: "Strike on the station",
        timePrecision: "day",
        occurredUntil: "2022-04-09",
        location: { name: "Kramatorsk station", country: "UA", precision: "exact", lat: 48.73, lon: 37.58 },
      }),
    );
    expect(revised.status).toBe(201);
    const s = await summary(id);
    expect(s).toMatchObject({
      title: "Strike on the station",
      timePrecision: "day",
      occurredOn: "2022-04-08",
      occurredUntil: "2022-04-09",
      location: { precision: "exact" },
      revisedInVersion: 2,
      revisions: 1,
    });
    const switched = await post(
      archive.url,
      id,
      editor("IncidentRevised", { occurredAt: "2022-04-08T10:30:00+03:00" }),
    );
    expect(switched.status).toBe(201);
    expect(await summary(id)).toMatchObject({
      occurredAt: "2022-04-08T10:30:00+03:00",
      occurredOn: null,
      revisedInVersion: 3,
    });
  });

  it("given a revised incident, then its page shows each revised field's history", async () => {
    const page = await (await fetch(`${archive.url}/view/coding-revise`)).text();
    expect(page).toContain('data-field-history="title"');
    expect(page).toContain("Missile strike on a station");
    expect(page).toContain("Strike on the station");
    expect(page).toMatch(/data-field-history="occurredOn"[\s\S]*2022-04-08[\s\S]*\(none\)/);
    expect(page).toContain('data-time-precision="">day<');
    expect(page).toContain('data-location-precision="">exact<');
  });

  it.each([
    ["no field", {}, "data"],
    [
      "occurredAt and occurredOn both",
      { occurredAt: "2022-04-08T10:00:00Z", occurredOn: "2022-04-08" },
      "data.occurredOn",
    ],
    ["a time precision outside the list", { timePrecision: "hour" }, "data.timePrecision"],
    [
      "a location precision outside the list",
      { location: { name: "X", country: "UA", precision: "street" } },
      "data.location.precision",
    ],
    [
      "occurredUntil before its own start",
      { occurredOn: "2022-04-08", occurredUntil: "2022-04-07" },
      "data.occurredUntil",
    ],
    ["occurredUntil before the incident's start", { occurredUntil: "2022-04-01" }, "data.occurredUntil"],
  ])(
    "given an IncidentRevised with %s, then 422 naming the field and nothing stored",
    async (_what, data, path) => {
      const id = "coding-revise-bad";
      if ((await call(archive.url, "GET", `/incidents/${id}/events`)).status === 404)
        await post(archive.url, id, opened("coding-revise-bad-open", { occurredOn: "2022-04-08" }));
      const before = (await events(id)).length;
      const answer = await post(archive.url, id, editor("IncidentRevised", data));
      expect(answer.status).toBe(422);
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
      expect((await events(id)).length).toBe(before);
    },
  );

  it("given an incident with no start, when a revision gives it only an end, then 422 naming it and nothing stored", async () => {
    const id = "coding-revise-no-start";
    await post(archive.url, id, opened("coding-no-start-open"));
    const answer = await post(archive.url, id, editor("IncidentRevised", { occurredUntil: "2022-04-09" }));
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([
      {
        path: "data.occurredUntil",
        message: "the incident has no start to end after: give occurredAt or occurredOn too",
      },
    ]);
    expect((await events(id)).length).toBe(1);
    const both = await post(
      archive.url,
      id,
      editor("IncidentRevised", { occurredOn: "2022-04-08", occurredUntil: "2022-04-09" }),
    );
    expect(both.status).toBe(201);
  });

  it("given an opening whose occurredUntil is before its start, then 422 and nothing stored", async () => {
    const answer = await post(
      archive.url,
      "coding-open-bad",
      opened(undefined, { occurredAt: "2022-04-08T10:00:00Z", occurredUntil: "2022-04-07" }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].path).toBe("data.occurredUntil");
    expect((await call(archive.url, "GET", "/incidents/coding-open-bad/events")).status).toBe(404);
  });

  it("given a writer who is not an editor, when they post an IncidentRevised, then 403 and nothing stored", async () => {
    const id = "coding-revise-bad";
    const before = (await events(id)).length;
    const answer = await post(archive.url, id, editor("IncidentRevised", { title: "Renamed" }), {
      authorization: `Bearer ${WRITER_TOKEN}`,
    });
    expect(answer.status).toBe(403);
    expect((await events(id)).length).toBe(before);
    // The writer may still post a report.
    expect(
      (
        await post(archive.url, id, casualties({ killed: { value: 3, qualifier: "exact" } }), {
          authorization: `Bearer ${WRITER_TOKEN}`,
        })
      ).status,
    ).toBe(201);
  });

  it("given a writer who is not an editor, when they post an editor's type that is also invalid, then 403 before the event is validated, and nothing stored", async () => {
    const id = "coding-grade-bad";
    expect((await post(archive.url, id, opened("coding-grade-bad-open"))).status).toBe(201);
    const asWriter = { authorization: `Bearer ${WRITER_TOKEN}` };
    const invalid = editor("IncidentGraded", { grade: "nonsense" });
    const batch = { events: [casualties({ killed: { value: 4, qualifier: "exact" } }), invalid] };
    for (const body of [invalid, batch]) {
      const answer = await post(archive.url, id, body, asWriter);
      expect(answer.status).toBe(403);
      expect(answer.body.role).toBe("editor");
    }
    // JSON that does not parse names no type: still 400. A type that does not exist needs no editor: 422.
    const malformed = await post(archive.url, id, '{"type":"IncidentGraded","data":', asWriter);
    expect(malformed.status).toBe(400);
    const unknown = await post(archive.url, id, { ...invalid, type: "IncidentGrade" }, asWriter);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].path).toBe("type");
    expect((await events(id)).length).toBe(1);
  });
});

describe("grades, attributions and links", () => {
  const a = "coding-link-a";
  const b = "coding-link-b";
  beforeAll(async () => {
    await post(archive.url, a, opened("coding-link-a-open"));
    await post(archive.url, b, opened("coding-link-b-open"));
  });

  it("given a grade and an attribution, then the summary shows them beside the suggested grade", async () => {
    await post(archive.url, a, casualties({ killed: { value: 10, qualifier: "exact" } }, "Governor"));
    expect((await summary(a)).grade).toEqual({ given: null, suggested: "single-source", count: 0 });
    await post(archive.url, a, {
      ...casualties({ killed: { value: 12, qualifier: "exact" } }, "Police"),
      source: { publisher: "Reuters" },
    });
    expect((await summary(a)).grade.suggested).toBe("corroborated");
    expect(
      (
        await post(
          archive.url,
          a,
          editor("IncidentGraded", { scale: "ledger", grade: "confirmed", reasoning: "two wires" }),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await post(
          archive.url,
          a,
          editor("AttributionAssessed", {
            perpetrator: { name: "Armed forces of X", side: "X" },
            certainty: "medium",
          }),
        )
      ).status,
    ).toBe(201);
    const s = await summary(a);
    expect(s.grade).toMatchObject({
      given: { grade: "confirmed", reasoning: "two wires" },
      suggested: "corroborated",
      count: 1,
    });
    expect(s.attributions).toMatchObject({
      count: 1,
      latest: [{ perpetrator: { name: "Armed forces of X" }, certainty: "medium" }],
    });
    // The editors' desk is named, not linked: a judgement names no source, so there is no page for it,
    // while the reporters beside it lead to theirs.
    const view = await (await fetch(`${archive.url}/view/${a}`)).text();
    expect(view).toContain("<bdi>Editors&#39; desk</bdi>");
    expect(view).not.toContain('href="/source/Editors');
    expect(view).toContain('href="/source/Governor"');
    expect((await call(archive.url, "GET", "/sources/Editors'%20desk")).status).toBe(404);
    const graded = await call(archive.url, "GET", "/incidents?grade=confirmed&limit=100");
    expect(graded.body.items.map((i: { incidentId: string }) => i.incidentId)).toContain(a);
    const single = await call(archive.url, "GET", "/incidents?grade=single-source&limit=100");
    expect(single.body.items.map((i: { incidentId: string }) => i.incidentId)).not.toContain(a);
    // The listing page and the map filter by grade the same way; an unknown grade is named on the page.
    const page = async (path: string) => {
      const res = await fetch(`${archive.url}${path}`);
      return { status: res.status, html: await res.text() };
    };
    const confirmedPage = await page("/?grade=confirmed");
    expect(confirmedPage.status).toBe(200);
    expect(confirmedPage.html).toContain(`/view/${a}`);
    expect(confirmedPage.html).toContain("grade confirmed");
    expect(confirmedPage.html).toMatch(/<option value="confirmed" selected/);
    expect((await page("/?grade=single-source")).html).not.toContain(`/view/${a}`);
    expect((await page("/?grade=confirmed&q=Kramatorsk")).html).toContain(`/view/${a}`);
    expect((await page("/?grade=single-source&q=Kramatorsk")).html).not.toContain(`/view/${a}`);
    const unknown = await page("/?grade=probable");
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain("Grade must be one of single-source");
    // The map draws only placed incidents: one with coordinates, graded.
    const placed = "coding-grade-placed";
    const place = { location: { name: "Kramatorsk", country: "UA", lat: 48.72, lon: 37.56 } };
    expect((await post(archive.url, placed, opened(undefined, place))).status).toBe(201);
    const graded2 = editor("IncidentGraded", { scale: "ledger", grade: "confirmed", reasoning: "on site" });
    expect((await post(archive.url, placed, graded2)).status).toBe(201);
    expect((await page("/map?grade=confirmed")).html).toContain(`/view/${placed}`);
    expect((await page("/map?grade=discounted")).html).not.toContain(`/view/${placed}`);
    const badMap = await page("/map?grade=probable");
    expect(badMap.status).toBe(400);
    expect(badMap.html).toContain("Grade must be one of single-source");
  });

  it("given an editorial judgement without attributedTo, then it is stored (the editor is recordedBy)", async () => {
    const answer = await post(archive.url, a, {
      type: "AttributionAssessed",
      source: { publisher: "incident-ledger" },
      data: { perpetrator: { name: "Unit Y" }, certainty: "low" },
    });
    expect(answer.status).toBe(201);
    const s = await summary(a);
    expect(s.attributions.latest[0]).toMatchObject({
      perpetrator: { name: "Unit Y" },
      attributedTo: { name: "incident-ledger" },
    });
  });

  it("given a grade outside the list, then 422 and nothing stored", async () => {
    const before = (await events(a)).length;
    const answer = await post(
      archive.url,
      a,
      editor("IncidentGraded", { scale: "ledger", grade: "probable" }),
    );
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].path).toBe("data.grade");
    expect((await events(a)).length).toBe(before);
    expect((await call(archive.url, "GET", "/incidents?grade=probable")).status).toBe(400);
  });

  it("given a link posted on A, then it shows on A's summary and on B's", async () => {
    const answer = await post(
      archive.url,
      a,
      editor("IncidentsLinked", { otherIncidentId: b, relation: "same-event" }, "coding-link-ab"),
    );
    expect(answer.status).toBe(201);
    const sa = await summary(a);
    expect(sa.links).toMatchObject({
      count: 1,
      items: [{ incidentId: b, relation: "same-event", direction: "outgoing" }],
    });
    // Read at once, without waiting for the stream: the append answered once A was projected.
    const sb = (await call(archive.url, "GET", `/incidents/${b}`)).body;
    expect(sb.links).toMatchObject({
      count: 1,
      items: [{ incidentId: a, relation: "same-event", direction: "incoming", eventId: "coding-link-ab" }],
    });
    // B's own version did not move: the link is A's event.
    expect(sb.version).toBe(1);
    const pageOfB = await (await fetch(`${archive.url}/view/${b}`)).text();
    expect(pageOfB).toContain(`data-link="${a}" data-direction="incoming"`);
    expect(pageOfB).toContain(`href="/view/${a}"`);
    const listed = await call(archive.url, "GET", "/incidents?limit=100");
    const bListed = listed.body.items.find((i: { incidentId: string }) => i.incidentId === b);
    expect(bListed.links.items[0]).toMatchObject({ incidentId: a, direction: "incoming" });
  });

  it.each([
    ["to itself", { otherIncidentId: a, relation: "related" }],
    ["to a missing incident", { otherIncidentId: "coding-no-such", relation: "related" }],
    ["the same as before", { otherIncidentId: b, relation: "same-event" }],
  ])("given a link %s, then 422 naming data.otherIncidentId and nothing stored", async (_what, data) => {
    const before = (await events(a)).length;
    const answer = await post(archive.url, a, editor("IncidentsLinked", data));
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].path).toBe("data.otherIncidentId");
    expect((await events(a)).length).toBe(before);
  });

  it("given a link stored, when the same append is sent again (a retry), then 200 with the first answer, nothing new", async () => {
    const first = await post(
      archive.url,
      a,
      editor("IncidentsLinked", { otherIncidentId: b, relation: "related" }, "coding-link-retry"),
    );
    expect(first.status).toBe(201);
    const before = (await events(a)).length;
    const again = await post(
      archive.url,
      a,
      editor("IncidentsLinked", { otherIncidentId: b, relation: "related" }, "coding-link-retry"),
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await events(a)).length).toBe(before);
    // The same id with other content is still refused (409), and so is the link again under a new id (422).
    const changed = await post(
      archive.url,
      a,
      editor("IncidentsLinked", { otherIncidentId: b, relation: "part-of" }, "coding-link-retry"),
    );
    expect(changed.status).toBe(409);
    const fresh = await post(
      archive.url,
      a,
      editor("IncidentsLinked", { otherIncidentId: b, relation: "related" }),
    );
    expect(fresh.status).toBe(422);
  });

  it("given a revision the incident has since moved past, when it is retried, then 200 with its first answer", async () => {
    const id = "coding-revision-retry";
    expect((await post(archive.url, id, opened(`${id}-opened`, { occurredOn: "2023-05-01" }))).status).toBe(
      201,
    );
    const x = editor("IncidentRevised", { occurredOn: "2023-05-03" }, "coding-revise-x");
    const first = await post(archive.url, id, x);
    expect(first.status).toBe(201);
    const y = editor(
      "IncidentRevised",
      { occurredOn: "2023-05-01", occurredUntil: "2023-05-02" },
      "coding-revise-y",
    );
    expect((await post(archive.url, id, y)).status).toBe(201);
    const again = await post(archive.url, id, x);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await events(id)).toHaveLength(3);
  });

  it("given an editorial event, when a ReportRetracted names it, then 422", async () => {
    const answer = await post(archive.url, a, {
      type: "ReportRetracted",
      source: AP,
      attributedTo: { name: "AP" },
      data: { targetEventId: "coding-link-ab", reason: "oops" },
    });
    expect(answer.status).toBe(422);
  });
});

describe("the listing's grade filter", () => {
  it("given a graded incident behind many newer ones, then a page reads a bounded part of the index, short with a cursor, and the cursor finds it", async () => {
    const old = "coding-graded-old";
    await post(archive.url, old, opened());
    expect(
      (await post(archive.url, old, editor("IncidentGraded", { scale: "ledger", grade: "discounted" })))
        .status,
    ).toBe(201);
    for (let i = 0; i < GRADE_PAGES + 1; i++) await post(archive.url, `coding-newer-${i}`, opened());
    await archive.stream.idle();
    const first = await call(archive.url, "GET", "/incidents?grade=discounted&limit=1");
    expect(first.body.items).toEqual([]);
    expect(first.body.nextCursor).not.toBeNull();
    let cursor: string | null = first.body.nextCursor;
    const found: string[] = [];
    for (let pages = 0; cursor && pages < 20 && found.length === 0; pages++) {
      const next = await call(
        archive.url,
        "GET",
        `/incidents?grade=discounted&limit=1&cursor=${encodeURIComponent(cursor)}`,
      );
      found.push(...next.body.items.map((s: { incidentId: string }) => s.incidentId));
      cursor = next.body.nextCursor;
    }
    expect(found).toEqual([old]);
  });
});
