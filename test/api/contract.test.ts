import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { AP, call, casualties, opened, post, startArchive, TOKEN } from "../support/archive.js";

let archive: LocalServer;
const get = (path: string, headers?: Record<string, string>) =>
  call(archive.url, "GET", path, undefined, headers);

beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

const denial = (eventId: string) => ({
  eventId,
  type: "DenialIssued",
  source: AP,
  attributedTo: { name: "Dmitry Peskov", role: "Kremlin spokesman", side: "Russia" },
  data: { claim: "that its forces use that missile", counterClaim: "they do not use it" },
});
const assessment = (eventId: string, target: string, verdict: string) => ({
  eventId,
  type: "ClaimAssessed",
  source: AP,
  attributedTo: { name: "Experts" },
  data: { targetEventId: target, verdict },
});
const retraction = (eventId: string, target: string) => ({
  eventId,
  type: "ReportRetracted",
  source: AP,
  attributedTo: { name: "AP" },
  data: { targetEventId: target, reason: "misattributed" },
});

describe("appends", () => {
  it("201 with Location, ETag and the stored positions", async () => {
    const answer = await post(archive.url, "contract-append", opened("contract-append-1"));
    expect(answer.status).toBe(201);
    expect(answer.headers.get("location")).toBe("/incidents/contract-append");
    expect(answer.headers.get("etag")).toBe('"1"');
    expect(answer.body).toMatchObject({
      incidentId: "contract-append",
      version: 1,
      events: [{ eventId: "contract-append-1", version: 1 }],
    });
    expect(answer.body.events[0].hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("errors: 401, 400, 413, 409 on a missing incident or a second opening, 422 naming fields", async () => {
    const noToken = await call(archive.url, "POST", "/incidents/contract-errors/events", opened(), {
      authorization: "",
    });
    expect(noToken.status).toBe(401);
    const wrongToken = await call(archive.url, "POST", "/incidents/contract-errors/events", opened(), {
      authorization: "Bearer nope",
    });
    expect(wrongToken.status).toBe(401);
    const notJson = await post(archive.url, "contract-errors", "{not json");
    expect(notJson.status).toBe(400);
    const huge = await post(archive.url, "contract-errors", { ...opened(), pad: "x".repeat(300 * 1024) });
    expect(huge.status).toBe(413);
    const missing = await post(
      archive.url,
      "contract-errors",
      casualties({ killed: { value: 1, qualifier: "exact" } }),
    );
    expect(missing.status).toBe(409);
    const badType = await post(archive.url, "contract-errors", { ...opened(), type: "Rumour" });
    expect(badType.status).toBe(422);
    expect(badType.body.errors).toEqual([expect.objectContaining({ path: "type" })]);
    const badSlug = await post(archive.url, "Contract_Errors", opened());
    expect(badSlug.status).toBe(422);
    expect(badSlug.body.errors[0].path).toBe("incidentId");
    for (const answer of [noToken, wrongToken, notJson, huge, missing, badType, badSlug]) {
      expect(answer.headers.get("content-type")).toContain("application/problem+json");
      expect(answer.body).toEqual(
        expect.objectContaining({
          type: expect.any(String),
          title: expect.any(String),
          status: answer.status,
          detail: expect.any(String),
        }),
      );
    }
    expect((await get("/incidents/contract-errors")).status).toBe(404);
    expect((await post(archive.url, "contract-errors", opened())).status).toBe(201);
    expect((await post(archive.url, "contract-errors", opened())).status).toBe(409);
    const badIfMatch = await post(
      archive.url,
      "contract-errors",
      casualties({ killed: { value: 1, qualifier: "exact" } }),
      { "If-Match": "soon" },
    );
    expect(badIfMatch.status).toBe(400);
  });

  it("422 names every missing field at once, each by its own path, and lists at most 100", async () => {
    const empty = await post(archive.url, "contract-empty", { type: "IncidentOpened", data: {} });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual([
      { path: "source.publisher", message: "is required" },
      { path: "data.title", message: "is required" },
      { path: "data.kind", message: "is required" },
      { path: "data.location.name", message: "is required" },
      { path: "data.location.country", message: "is required" },
    ]);
    const placeless = await post(archive.url, "contract-empty", {
      type: "IncidentOpened",
      source: AP,
      data: { title: "Strike on a station", kind: "missile-strike" },
    });
    expect(placeless.body.errors.map((e: { path: string }) => e.path)).toEqual([
      "data.location.name",
      "data.location.country",
    ]);
    // 25 empty openings, five fields each: the first 100 listed, the rest counted.
    const events = Array.from({ length: 25 }, () => ({ type: "IncidentOpened" }));
    const many = await post(archive.url, "contract-empty", { events });
    expect(many.status).toBe(422);
    expect(many.body.errors).toHaveLength(100);
    expect(many.body.errors[5]).toEqual({ path: "events[1].source.publisher", message: "is required" });
    expect(many.body.errorsOmitted).toBe(25);
    expect((await get("/incidents/contract-empty")).status).toBe(404);
  });

  it("targets are found by their id alone, client-chosen or server-made", async () => {
    await post(archive.url, "contract-target-c", opened());
    const made = await post(
      archive.url,
      "contract-target-c",
      casualties({ killed: { value: 9, qualifier: "exact" } }, "X"),
    );
    const serverId = made.body.events[0].eventId;
    expect(
      (await post(archive.url, "contract-target-c", retraction("contract-target-c-retract", serverId)))
        .status,
    ).toBe(201);
    const other = await post(archive.url, "contract-target-d", opened());
    const foreign = await post(
      archive.url,
      "contract-target-c",
      assessment("contract-target-c-assess", other.body.events[0].eventId, "false"),
    );
    expect(foreign.status).toBe(422);
    const sameBatch = await post(archive.url, "contract-target-c", {
      events: [
        casualties({ killed: { value: 10, qualifier: "exact" } }, "Y", "contract-target-c-new"),
        retraction("contract-target-c-retract-new", "contract-target-c-new"),
      ],
    });
    expect(sameBatch.status).toBe(201);
    expect((await get("/incidents/contract-target-c")).body.retractedEventIds).toEqual([
      serverId,
      "contract-target-c-new",
    ]);
  });

  it("a targetEventId outside the incident is a 422", async () => {
    await post(archive.url, "contract-target-a", opened("contract-target-a-open"));
    await post(archive.url, "contract-target-b", opened());
    const answer = await post(
      archive.url,
      "contract-target-b",
      assessment("contract-target-x", "contract-target-a-open", "false"),
    );
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].path).toBe("data.targetEventId");
  });
});

describe("keys that meet Object.prototype", () => {
  it("categories like constructor and ids like __proto__ are ordinary data", async () => {
    const id = "contract-proto-keys";
    await post(archive.url, id, opened("__proto__"));
    const odd = await post(
      archive.url,
      id,
      casualties(
        { constructor: { value: 3, qualifier: "exact" }, toString: { value: 1, qualifier: "exact" } },
        "A",
        "constructor",
      ),
    );
    expect(odd.status).toBe(201);
    const missing = await post(
      archive.url,
      id,
      assessment("contract-proto-hasown", "hasOwnProperty", "false"),
    );
    expect(missing.status).toBe(422);
    const retracted = await post(archive.url, id, retraction("contract-proto-retract", "constructor"));
    expect(retracted.status).toBe(201);
    const summary = await get(`/incidents/${id}`);
    expect(summary.status).toBe(200);
    expect(summary.body.casualties.constructor).toMatchObject({ low: null, reports: 1 });
    expect(summary.body.retractedEventIds).toEqual(["constructor"]);
    expect((await post(archive.url, id, retraction("contract-proto-retract-open", "__proto__"))).status).toBe(
      422,
    );
  });

  it("a member named __proto__ in a record (a category, a disclose mark) is refused by its path, not dropped", async () => {
    const id = "contract-proto-members";
    await post(archive.url, id, opened());
    // As a client's JSON carries it: a member of that name, which a JS object literal cannot write.
    const send = (body: string) =>
      fetch(`${archive.url}/incidents/${id}/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body,
      });
    const source = '"source":{"publisher":"AP"},"attributedTo":{"name":"A"}';
    const figures = await send(
      `{"type":"CasualtiesReported",${source},"data":{"figures":{"killed":{"value":1,"qualifier":"exact"},"__proto__":{"value":5,"qualifier":"exact"}}}}`,
    );
    expect(figures.status).toBe(422);
    expect(((await figures.json()) as { errors: unknown }).errors).toEqual([
      { path: "data.figures.__proto__", message: "is not a name this archive takes" },
    ]);
    const disclose = await send(
      `{"type":"VictimsRecorded",${source},"data":{"victims":[{"name":"A B"}],"disclose":{"/data/victims/0/name":"public","__proto__":"public"}}}`,
    );
    expect(disclose.status).toBe(422);
    expect(((await disclose.json()) as { errors: unknown }).errors).toEqual([
      { path: "data.disclose.__proto__", message: "is not a name this archive takes" },
    ]);
    expect((await get(`/incidents/${id}`)).body.version).toBe(1);
  });
});

describe("the summary", () => {
  const id = "contract-summary";
  beforeAll(async () => {
    await post(archive.url, id, opened("cs-opened", { location: { name: "Kramatorsk", country: "UA" } }));
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 50, qualifier: "at-least" } }, "Ukrainian authorities", "cs-ua-toll"),
    );
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 12, qualifier: "exact" } }, "Police", "cs-police-toll"),
    );
    await post(archive.url, id, denial("cs-denial-1"));
    await post(archive.url, id, assessment("cs-assess-1", "cs-denial-1", "disputed"));
    await archive.stream.idle();
  });

  it("projects figures, denials with status, contested and the ETag", async () => {
    const answer = await get(`/incidents/${id}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("etag")).toBe('"5"');
    const s = answer.body;
    expect(s).toMatchObject({
      incidentId: id,
      version: 5,
      title: "Missile strike on a station",
      kind: "missile-strike",
      contested: true,
    });
    expect(s.casualties.killed).toMatchObject({ low: 50, high: null, reports: 2 });
    expect(s.casualties.killed.latest.eventId).toBe("cs-police-toll");
    expect(s.casualties.killed.bySource).toHaveLength(2);
    expect(s.denials[0]).toMatchObject({
      eventId: "cs-denial-1",
      status: "disputed",
      assessments: [{ eventId: "cs-assess-1", verdict: "disputed" }],
    });
    expect(s.headHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await get(`/incidents/${id}`, { "if-none-match": '"5"' })).status).toBe(304);
  });

  it("version=N and asOf give the summary as it stood then", async () => {
    const at2 = await get(`/incidents/${id}?version=2`);
    expect(at2.body.version).toBe(2);
    expect(at2.body.casualties.killed.reports).toBe(1);
    expect(at2.body.contested).toBe(false);
    const events = (await get(`/incidents/${id}/events`)).body.items;
    const asOf = await get(`/incidents/${id}?asOf=${encodeURIComponent(events[2].recordedAt)}`);
    expect(asOf.body.version).toBeGreaterThanOrEqual(3);
    expect(asOf.body.version).toBeLessThanOrEqual(5);
    expect((await get(`/incidents/${id}?asOf=2001-01-01T00:00:00Z`)).status).toBe(404);
    const future = await get(`/incidents/${id}?version=99`);
    expect(future.status).toBe(404);
    expect(future.body.currentVersion).toBe(5);
    expect((await get(`/incidents/${id}?minVersion=99`)).body.currentVersion).toBe(5);
    expect((await get(`/incidents/${id}?version=zero`)).status).toBe(400);
    expect((await get(`/incidents/${id}?asOf=yesterday`)).status).toBe(400);
  });

  it("minVersion reads your own write even before the view is updated", async () => {
    const written = await post(archive.url, id, retraction("cs-retract-1", "cs-ua-toll"));
    const answer = await get(`/incidents/${id}?minVersion=${written.body.version}`);
    expect(answer.status).toBe(200);
    expect(answer.body.version).toBe(6);
    expect(answer.body.retractedEventIds).toEqual(["cs-ua-toll"]);
    expect(answer.body.casualties.killed).toMatchObject({ low: 12, high: 12, reports: 2 });
    await archive.stream.idle();
    expect((await get(`/incidents/${id}`)).body).toEqual(answer.body);
  });

  it("locally, a plain read right after a write already reflects it", async () => {
    for (let i = 0; i < 5; i++) {
      const written = await post(
        archive.url,
        "contract-read-after-write",
        i === 0 ? opened() : casualties({ killed: { value: i, qualifier: "exact" } }, `s${i}`),
      );
      const read = await get("/incidents/contract-read-after-write");
      expect(read.body.version).toBe(written.body.version);
      const listed = (await get("/incidents?limit=1")).body.items[0];
      expect(listed).toMatchObject({
        incidentId: "contract-read-after-write",
        version: written.body.version,
      });
    }
  });

  it("retracting the denial makes the incident uncontested", async () => {
    await post(archive.url, id, retraction("cs-retract-denial", "cs-denial-1"));
    const answer = await get(`/incidents/${id}?minVersion=7`);
    expect(answer.body.contested).toBe(false);
    expect(answer.body.denials).toEqual([]);
  });

  it("404 for an unknown incident, for events and verify too", async () => {
    for (const path of [
      "/incidents/nothing-here",
      "/incidents/nothing-here/events",
      "/incidents/nothing-here/verify",
      "/incidents/NOT_A_SLUG",
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers.get("content-type")).toContain("application/problem+json");
    }
  });
});

describe("events and listing", () => {
  it("pages events with after/limit and next", async () => {
    const id = "contract-pages";
    await post(archive.url, id, {
      events: [
        opened(),
        ...Array.from({ length: 6 }, (_, i) =>
          casualties({ killed: { value: i, qualifier: "exact" } }, `p${i}`),
        ),
      ],
    });
    await post(archive.url, id, casualties({ killed: { value: 9, qualifier: "exact" } }, "late"));
    const first = await get(`/incidents/${id}/events?limit=3`);
    expect(first.body.items.map((e: { version: number }) => e.version)).toEqual([1, 2, 3]);
    expect(first.body.next).toBe(3);
    const middle = await get(`/incidents/${id}/events?after=5&limit=2`);
    expect(middle.body.items.map((e: { version: number }) => e.version)).toEqual([6, 7]);
    expect(middle.body.next).toBe(7);
    const last = await get(`/incidents/${id}/events?after=7&limit=2`);
    expect(last.body.items.map((e: { version: number }) => e.version)).toEqual([8]);
    expect(last.body.next).toBeNull();
    expect((await get(`/incidents/${id}/events?limit=501`)).status).toBe(400);
  });

  it("lists summaries newest first, filters, and pages with a cursor", async () => {
    const list = await call(archive.url, "GET", "/incidents?limit=100");
    await archive.stream.idle();
    const ids = ["contract-list-a", "contract-list-b", "contract-list-c"];
    await post(
      archive.url,
      ids[0] as string,
      opened(undefined, { kind: "mass-grave", location: { name: "Bucha", country: "UA" } }),
    );
    await post(
      archive.url,
      ids[1] as string,
      opened(undefined, { kind: "shelling", location: { name: "Aleppo", country: "SY" } }),
    );
    await post(archive.url, ids[2] as string, { events: [opened(), denial("contract-list-denial")] });
    await archive.stream.idle();
    const all = await get("/incidents?limit=100");
    expect(all.body.items.length).toBe(list.body.items.length + 3);
    expect(all.body.items.slice(0, 3).map((s: { incidentId: string }) => s.incidentId)).toEqual(
      [...ids].reverse(),
    );
    expect(
      (await get("/incidents?kind=mass-grave")).body.items.map((s: { incidentId: string }) => s.incidentId),
    ).toEqual(["contract-list-a"]);
    expect(
      (await get("/incidents?country=SY")).body.items.map((s: { incidentId: string }) => s.incidentId),
    ).toEqual(["contract-list-b"]);
    const contested = (await get("/incidents?contested=true&limit=100")).body.items;
    expect(contested.every((s: { contested: boolean }) => s.contested)).toBe(true);
    expect(contested.map((s: { incidentId: string }) => s.incidentId)).toContain("contract-list-c");

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { incidentId: string }[]; nextCursor: string | null } } = await get(
        `/incidents?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.body.items.map((s) => s.incidentId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.body.items.map((s: { incidentId: string }) => s.incidentId));
    expect((await get("/incidents?cursor=garbage")).status).toBe(400);
    expect((await get("/incidents?limit=0")).status).toBe(400);
  });
});

describe("strict parsing of what clients send", () => {
  it("tampered cursors, zoneless or impossible times, loose If-Match and bad UTF-8 are 400s", async () => {
    const forge = (key: unknown) => Buffer.from(JSON.stringify(key)).toString("base64url");
    for (const key of [
      { incidentId: { S: "" }, listPk: { S: "incident" }, activity: { S: "x" } },
      { incidentId: { S: "abc" }, listPk: { S: "other" }, activity: { S: "2026#abc" } },
      { incidentId: { S: "abc" }, listPk: { S: "incident" }, activity: { S: "" } },
      { incidentId: { S: "abc", N: "1" }, listPk: { S: "incident" }, activity: { S: "2026#abc" } },
      { incidentId: { S: "abc" }, listPk: { S: "incident" }, activity: { S: `${"x".repeat(1100)}#abc` } },
    ]) {
      const answer = await get(`/incidents?cursor=${forge(key)}`);
      expect(answer.status, JSON.stringify(key)).toBe(400);
      expect(answer.body.errors[0].path).toBe("query.cursor");
    }
    await post(archive.url, "contract-strict", opened());
    for (const asOf of ["2022-04-08T12:00:00", "2022-02-30T00:00:00Z", "2022-04-08"]) {
      expect((await get(`/incidents/contract-strict?asOf=${asOf}`)).status, asOf).toBe(400);
    }
    for (const ifMatch of ['"01"', 'W/"1"', '"1', "*"]) {
      const answer = await post(
        archive.url,
        "contract-strict",
        casualties({ killed: { value: 1, qualifier: "exact" } }),
        { "If-Match": ifMatch },
      );
      expect(answer.status, ifMatch).toBe(400);
    }
    const badBytes = await fetch(`${archive.url}/incidents/contract-strict/events`, {
      method: "POST",
      headers: { authorization: "Bearer test-token-0123456789", "content-type": "application/json" },
      body: Buffer.concat([
        Buffer.from('{"type":"StatementMade","source":{"publisher":"bad '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}'),
      ]),
    });
    expect(badBytes.status).toBe(400);
    expect((await get("/incidents/contract-strict/events")).body.items).toHaveLength(1);
  });
});

describe("meta routes", () => {
  it("health, the OpenAPI 3.1 document and the docs page", async () => {
    expect((await get("/health")).body).toEqual({ ok: true });
    const doc = (await get("/openapi.json")).body;
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/incidents/{incidentId}/events",
        "/incidents/{incidentId}",
        "/incidents",
        "/incidents/{incidentId}/verify",
      ]),
    );
    expect(doc.components.schemas.EventEnvelope).toBeDefined();
    const docs = await fetch(`${archive.url}/docs`);
    expect(docs.headers.get("content-type")).toContain("text/html");
    const html = await docs.text();
    expect(html).toContain("/incidents/{incidentId}/events");
    expect(html).not.toMatch(/<script[^>]+src=/);
  });
});
