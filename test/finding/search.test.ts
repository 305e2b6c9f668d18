import { QueryCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, startArchive } from "../support/archive.js";
import { loadSample, opened } from "./finding-kit.js";

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
  await loadSample(archive);
  // Incidents whose words, dates and places the tests below tell apart.
  const more: [string, Record<string, unknown>][] = [
    [
      "find-odesa-port-2023",
      opened("find-odesa-port-2023", "Strike on the port of Odesa", {
        occurredOn: "2023-07-20",
        location: { name: "Odesa port", country: "UA", lat: 46.48, lon: 30.72 },
      }),
    ],
    [
      "find-odesa-theatre-2022",
      opened("find-odesa-theatre-2022", "Shelling near Odesa theatre", {
        occurredOn: "2022-03-01",
        location: { name: "Odesa", country: "UA", lat: 46.47, lon: 30.74 },
      }),
    ],
    [
      "find-vukovar-1991",
      opened("find-vukovar-1991", "Shelling of Vukovar hospital", {
        occurredOn: "1991-11-18",
        location: { name: "Vukovar", country: "HR", lat: 45.35, lon: 19.0 },
      }),
    ],
    [
      "find-lviv-2024",
      opened("find-lviv-2024", "Drone strike on Lviv depot", {
        occurredOn: "2024-01-05",
        location: { name: "Lviv", country: "UA", lat: 49.84, lon: 24.03 },
      }),
    ],
  ];
  for (const [id, event] of more) await call(archive.url, "POST", `/incidents/${id}/events`, event);
  await call(archive.url, "POST", "/incidents/find-lviv-2024/events", {
    type: "StatementMade",
    source: { publisher: "Kyiv Independent" },
    attributedTo: { name: "Andriy  Sadovyi", role: "Mayor of Lviv" },
    data: { quote: "The depot at Lviv (a.k.a. [depot-7]) burned for hours.*", stance: "condemns" },
  });
  await archive.stream.idle();
});
afterAll(() => archive.close());

const ids = (body: { items: { incidentId: string }[] }) => body.items.map((s) => s.incidentId);

describe("GET /incidents?q=", () => {
  it("finds words in titles, places, quotes, claims and speakers' names, best match first", async () => {
    const odesa = await call(archive.url, "GET", "/incidents?q=odesa");
    expect(odesa.status).toBe(200);
    // Both name Odesa in title and place; ties go to the newest occurrence.
    expect(ids(odesa.body)).toEqual(["find-odesa-port-2023", "find-odesa-theatre-2022"]);
    // Two words: the incident matching both comes first.
    expect(ids((await call(archive.url, "GET", "/incidents?q=odesa%20port")).body)[0]).toBe(
      "find-odesa-port-2023",
    );
    // A speaker's name and a word of a quote.
    expect(ids((await call(archive.url, "GET", "/incidents?q=Peskov")).body)).toEqual([
      "kramatorsk-station-2022-04-08",
    ]);
    expect(ids((await call(archive.url, "GET", "/incidents?q=burned")).body)).toEqual(["find-lviv-2024"]);
    // Diacritics and case do not matter; a word never said matches nothing.
    expect(ids((await call(archive.url, "GET", "/incidents?q=ÓDESA")).body)).toHaveLength(2);
    expect((await call(archive.url, "GET", "/incidents?q=zzyzx")).body).toEqual({
      items: [],
      nextCursor: null,
    });
  });

  it("treats operators and regular-expression characters as text", async () => {
    const answer = await call(
      archive.url,
      "GET",
      `/incidents?q=${encodeURIComponent('depot-7 OR .* ( [ "lviv')}`,
    );
    expect(answer.status).toBe(200);
    expect(ids(answer.body)[0]).toBe("find-lviv-2024");
  });

  it("refuses an empty, a blank, a 10 KB and an undecodable query, naming q; symbols alone match nothing", async () => {
    expect(
      (await call(archive.url, "GET", `/incidents?q=${encodeURIComponent(".*+?()[]{}|^$")}`)).body,
    ).toEqual({
      items: [],
      nextCursor: null,
    });
    // Half of a character (a lone surrogate's UTF-8) before a word: refused, not searched as `%ED…station`.
    for (const q of ["", "%20%20", "x".repeat(10_000), "%ED%A0%80%20odesa", "odesa%FF"]) {
      const answer = await call(archive.url, "GET", `/incidents?q=${q}`);
      expect(answer.status, q.slice(0, 40)).toBe(400);
      expect(answer.body.errors[0].path).toBe("query.q");
    }
    const source = await call(archive.url, "GET", "/incidents?source=%C3");
    expect(source.body.errors).toEqual([expect.objectContaining({ path: "query.source" })]);
  });

  it("pages with nextCursor, and refuses a cursor it did not give out", async () => {
    const first = await call(archive.url, "GET", "/incidents?q=odesa&limit=1");
    expect(ids(first.body)).toEqual(["find-odesa-port-2023"]);
    const second = await call(
      archive.url,
      "GET",
      `/incidents?q=odesa&limit=1&cursor=${first.body.nextCursor}`,
    );
    expect(ids(second.body)).toEqual(["find-odesa-theatre-2022"]);
    expect(second.body.nextCursor).toBeNull();
    expect((await call(archive.url, "GET", "/incidents?q=odesa&cursor=f.bm9wZQ")).status).toBe(400);
    // A cursor is of its query: passed with another one it is refused, not read as a place in it.
    for (const other of ["q=theatre", "q=odesa&kind=shelling", "q=odesa&from=2020-01-01"]) {
      const answer = await call(
        archive.url,
        "GET",
        `/incidents?${other}&limit=1&cursor=${first.body.nextCursor}`,
      );
      expect(answer.status, other).toBe(400);
      expect(answer.body.errors, other).toEqual([expect.objectContaining({ path: "query.cursor" })]);
    }
    // Another page size is the same query.
    const wider = await call(
      archive.url,
      "GET",
      `/incidents?q=odesa&limit=5&cursor=${first.body.nextCursor}`,
    );
    expect(ids(wider.body)).toEqual(["find-odesa-theatre-2022"]);
  });
});

describe("GET /incidents with from, to, source and bbox", () => {
  it("filters by when the incident occurred, newest first", async () => {
    const answer = await call(archive.url, "GET", "/incidents?from=2022-01-01&to=2023-12-31");
    expect(ids(answer.body)).toEqual([
      "find-odesa-port-2023",
      ...ids(answer.body).filter((id) => id.endsWith("2022-04-08") || id.endsWith("2022-04-07")),
      "find-odesa-theatre-2022",
    ]);
    expect(ids(answer.body)).not.toContain("find-lviv-2024");
    expect(ids((await call(archive.url, "GET", "/incidents?q=odesa&from=2023-01-01")).body)).toEqual([
      "find-odesa-port-2023",
    ]);
  });

  it("finds an incident on any day it went on, with a source or a box too, and follows a revision of its end", async () => {
    const id = "find-siege-2021";
    const siege = opened(id, "Siege of the river port", {
      occurredOn: "2021-03-20",
      occurredUntil: "2021-05-10",
      location: { name: "River port", country: "UA", lat: 47.1, lon: 37.55 },
    });
    expect((await call(archive.url, "POST", `/incidents/${id}/events`, siege)).status).toBe(201);
    await archive.stream.idle();
    const found = async (query: string) => ids((await call(archive.url, "GET", `/incidents?${query}`)).body);
    expect(await found("from=2021-04-10&to=2021-04-12")).toEqual([id]);
    expect(await found("from=2021-05-10&to=2021-05-31")).toEqual([id]);
    expect(await found("from=2021-03-01&to=2021-03-20")).toEqual([id]);
    expect(await found("from=2021-05-11&to=2021-12-31")).not.toContain(id);
    expect(await found("from=2021-04-10&to=2021-04-12&bbox=37,47,38,48")).toEqual([id]);
    expect(await found("from=2021-04-10&to=2021-04-12&source=Test%20Wire")).toEqual([id]);
    expect(await found("from=2021-04-10&q=siege")).toEqual([id]);
    // The list and the incident page say when it went on, so a February start in an April list reads right.
    const list = await (await fetch(`${archive.url}/?from=2021-04-10&to=2021-04-12`)).text();
    expect(list).toContain("2021-03-20 – 2021-05-10");
    expect(await (await fetch(`${archive.url}/view/${id}`)).text()).toContain(
      "When: 2021-03-20 – 2021-05-10",
    );
    const revised = await call(archive.url, "POST", `/incidents/${id}/events`, {
      type: "IncidentRevised",
      source: { publisher: "incident-ledger" },
      attributedTo: { name: "Editors' desk" },
      data: { occurredUntil: "2021-06-30" },
    });
    expect(revised.status).toBe(201);
    await archive.stream.idle();
    expect(await found("from=2021-06-01&to=2021-06-02")).toEqual([id]);
    expect(await found("from=2021-06-01&to=2021-06-02&source=Test%20Wire")).toEqual([id]);
    // A range from after the end a walk without `to` reads to (next year's) finds nothing there,
    // and refuses nothing.
    const ahead = `${new Date().getUTCFullYear() + 2}-01-24`;
    for (const also of ["", "&source=Test%20Wire", "&bbox=37,47,38,48"])
      expect((await call(archive.url, "GET", `/incidents?from=${ahead}${also}`)).status).toBe(200);
  });

  it("filters by a source or speaker, compared after NFC and white space", async () => {
    const speaker = await call(
      archive.url,
      "GET",
      `/incidents?source=${encodeURIComponent(" Andriy Sadovyi ")}`,
    );
    expect(ids(speaker.body)).toEqual(["find-lviv-2024"]);
    // A publisher of figures names its incidents too.
    const publisher = await call(
      archive.url,
      "GET",
      `/incidents?source=${encodeURIComponent("Associated Press")}`,
    );
    expect(ids(publisher.body)).toContain("kramatorsk-station-2022-04-08");
    const nfd = "Anto\u0301nio Guterres";
    expect(
      ids((await call(archive.url, "GET", `/incidents?source=${encodeURIComponent(nfd)}`)).body),
    ).toEqual(["kramatorsk-station-2022-04-08"]);
    expect((await call(archive.url, "GET", "/incidents?source=Nobody%20Atall")).body.items).toEqual([]);
  });

  it("takes a day of the years 0–99 as the write API does (not as 19xx)", async () => {
    const id = "find-antiquity-0099";
    const answer = await call(
      archive.url,
      "POST",
      `/incidents/${id}/events`,
      opened(id, "An old raid", { occurredOn: "0099-02-20" }),
    );
    expect(answer.status).toBe(201);
    await archive.stream.idle();
    expect(ids((await call(archive.url, "GET", "/incidents?from=0099-01-01&to=0099-12-31")).body)).toEqual([
      id,
    ]);
    expect((await call(archive.url, "GET", "/incidents?from=0099-02-30")).status).toBe(400);
  });

  it("filters by a box on the map, and refuses a box with min > max or out of range", async () => {
    const odesa = await call(archive.url, "GET", "/incidents?bbox=30,46,31,47");
    expect(ids(odesa.body).sort()).toEqual(["find-odesa-port-2023", "find-odesa-theatre-2022"]);
    const ukraine = await call(archive.url, "GET", "/incidents?bbox=22,44,41,53&kind=shelling");
    expect(ids(ukraine.body)).toContain("find-lviv-2024");
    const world = await call(archive.url, "GET", "/incidents?bbox=-180,-90,180,90");
    expect(ids(world.body)).toEqual(
      expect.arrayContaining([
        "find-lviv-2024",
        "find-odesa-port-2023",
        "find-odesa-theatre-2022",
        "kramatorsk-station-2022-04-08",
      ]),
    );
    for (const bbox of ["31,46,30,47", "30,47,31,46", "-181,0,0,10", "0,-91,10,0", "1,2,3", "a,b,c,d"]) {
      const answer = await call(archive.url, "GET", `/incidents?bbox=${bbox}`);
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].path).toBe("query.bbox");
    }
  });

  it("is fresh within the append: a new incident is found at once", async () => {
    await call(
      archive.url,
      "POST",
      "/incidents/find-fresh-2024/events",
      opened("find-fresh-2024", "Quokka sighting", { occurredOn: "2024-02-02" }),
    );
    await archive.stream.idle();
    expect(ids((await call(archive.url, "GET", "/incidents?q=quokka")).body)).toEqual(["find-fresh-2024"]);
  });
});

describe("paging a search through every match", () => {
  const get = async (query: string) => (await call(archive.url, "GET", `/incidents?${query}`)).body;
  /** Every page of a query, one incident a page, until its nextCursor is null. */
  const walk = async (query: string): Promise<string[]> => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page++) {
      const body = await get(`${query}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...ids(body));
      cursor = body.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error(`${query}: more than 50 pages`);
  };

  it("reaches back past thirty years, with from or without, and pages a range newest first", async () => {
    expect(ids(await get("from=1990-01-01&to=1992-12-31"))).toEqual(["find-vukovar-1991"]);
    expect(ids(await get("to=1992-12-31"))).toEqual(["find-vukovar-1991"]);
    const all = ids(await get("from=1990-01-01&limit=100"));
    const order = ["find-lviv-2024", "find-odesa-port-2023", "find-odesa-theatre-2022", "find-vukovar-1991"];
    expect(all.filter((id) => order.includes(id))).toEqual(order);
    expect(all.at(-1)).toBe("find-vukovar-1991");
    expect(await walk("from=1990-01-01")).toEqual(all);
  });

  it("pages a box's grid cells as one list, newest first, to the last match", async () => {
    const all = ids(await get("bbox=-180,-90,180,90&limit=100"));
    expect(all[0]).toBe("find-lviv-2024");
    expect(all.at(-1)).toBe("find-vukovar-1991");
    expect(await walk("bbox=-180,-90,180,90")).toEqual(all);
    expect(await walk("bbox=-180,-90,180,90&from=2022-01-01&to=2023-12-31")).toEqual(
      all.filter(
        (id) =>
          id !== "find-lviv-2024" &&
          id !== "find-vukovar-1991" &&
          id !== "find-siege-2021" &&
          !id.includes("fresh"),
      ),
    );
  });

  it("keeps to the source when one word is asked with it", async () => {
    expect(ids(await get("q=odesa&source=Nobody%20Atall"))).toEqual([]);
    expect(ids(await get("q=lviv&source=Andriy%20Sadovyi"))).toEqual(["find-lviv-2024"]);
    expect(ids(await get("q=depot&source=Andriy%20Sadovyi"))).toEqual(["find-lviv-2024"]);
    expect(ids(await get("q=odesa&source=Andriy%20Sadovyi"))).toEqual([]);
  });

  it("gives no cursor on the listing's last page, even when it is exactly full", async () => {
    const all = ids(await get("limit=100"));
    const full = await get(`limit=${all.length}`);
    expect(ids(full)).toEqual(all);
    expect(full.nextCursor).toBeNull();
    const short = await get(`limit=${all.length - 1}`);
    expect(short.nextCursor).not.toBeNull();
    const last = await get(`limit=${all.length - 1}&cursor=${encodeURIComponent(short.nextCursor)}`);
    expect(ids(last)).toEqual(all.slice(-1));
    expect(last.nextCursor).toBeNull();
  });
});

describe("GET /incidents with grade and the search filters", () => {
  it("keeps only the incidents of that grade (given or suggested), with q, from/to, source and bbox", async () => {
    const graded = await call(archive.url, "POST", "/incidents/find-odesa-port-2023/events", {
      type: "IncidentGraded",
      source: { publisher: "incident-ledger" },
      attributedTo: { name: "Editors' desk" },
      data: { scale: "ledger", grade: "confirmed", reasoning: "port authority and two wires" },
    });
    expect(graded.status).toBe(201);
    await archive.stream.idle();
    const found = async (query: string) => ids((await call(archive.url, "GET", `/incidents?${query}`)).body);
    expect(await found("q=odesa")).toEqual(["find-odesa-port-2023", "find-odesa-theatre-2022"]);
    expect(await found("q=odesa&grade=confirmed")).toEqual(["find-odesa-port-2023"]);
    expect(await found("q=odesa&grade=single-source")).toEqual(["find-odesa-theatre-2022"]);
    expect(await found("from=2023-01-01&to=2023-12-31&grade=confirmed")).toEqual(["find-odesa-port-2023"]);
    expect(await found("from=2023-01-01&to=2023-12-31&grade=single-source")).not.toContain(
      "find-odesa-port-2023",
    );
    expect(await found("bbox=30,46,31,47&grade=confirmed")).toEqual(["find-odesa-port-2023"]);
    expect(await found("bbox=30,46,31,47&grade=single-source")).toEqual(["find-odesa-theatre-2022"]);
    const lviv = (await call(archive.url, "GET", "/incidents/find-lviv-2024")).body.grade;
    const lvivGrade = lviv.given?.grade ?? lviv.suggested;
    expect(await found(`source=Andriy%20Sadovyi&grade=${lvivGrade}`)).toEqual(["find-lviv-2024"]);
    expect(await found("source=Andriy%20Sadovyi&grade=confirmed")).toEqual([]);
    expect(await found("q=odesa&grade=discounted")).toEqual([]);
  });

  it("pages a graded search with nextCursor until every match is seen, and refuses a grade outside the list", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer = await call(
        archive.url,
        "GET",
        `/incidents?q=odesa&grade=single-source&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expect(answer.status).toBe(200);
      seen.push(...ids(answer.body));
      cursor = answer.body.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(["find-odesa-theatre-2022"]);
    const bad = await call(archive.url, "GET", "/incidents?q=odesa&grade=probable");
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("query.grade");
  });
});

describe("GET /sources/{name}", () => {
  it("lists every incident naming the speaker, with their figures, statements and denials and how they were assessed", async () => {
    const answer = await call(archive.url, "GET", `/sources/${encodeURIComponent("Dmitry Peskov")}`);
    expect(answer.status).toBe(200);
    expect(answer.body.items).toHaveLength(1);
    const [row] = answer.body.items;
    expect(row.incidentId).toBe("kramatorsk-station-2022-04-08");
    expect(row.denials).toHaveLength(1);
    expect(row.denials[0].status).toBeDefined();
    const prosecutor = await call(
      archive.url,
      "GET",
      `/sources/${encodeURIComponent("Office of the Prosecutor-General of Ukraine")}`,
    );
    expect(prosecutor.body.items.map((r: { incidentId: string }) => r.incidentId).sort()).toEqual([
      "bucha-church-mass-grave-2022-04-08",
      "kramatorsk-station-2022-04-08",
    ]);
    expect(prosecutor.body.items[0].figures.length).toBeGreaterThan(0);
  });

  it("shows how each of the source's figures was assessed, in the answer and on its page", async () => {
    const id = "find-figure-assessed";
    await call(archive.url, "POST", `/incidents/${id}/events`, opened(id, "Quarry blast at Zhovtneve"));
    const report = await call(archive.url, "POST", `/incidents/${id}/events`, {
      type: "CasualtiesReported",
      source: { publisher: "Regional Desk" },
      attributedTo: { name: "Zhovtneve Rada Office" },
      data: { figures: { killed: { value: 40, qualifier: "exact" } } },
    });
    const target = report.body.events[0].eventId as string;
    const verdicts: string[] = [];
    for (const verdict of ["disputed", "false"]) {
      const assessed = await call(archive.url, "POST", `/incidents/${id}/events`, {
        type: "ClaimAssessed",
        source: { publisher: "Regional Desk" },
        attributedTo: { name: "Fact Check Unit" },
        data: { targetEventId: target, verdict },
      });
      verdicts.push(assessed.body.events[0].eventId);
    }
    await archive.stream.idle();
    const answer = await call(archive.url, "GET", `/sources/${encodeURIComponent("Zhovtneve Rada Office")}`);
    expect(answer.status).toBe(200);
    expect(answer.body.items[0].figures).toEqual([
      expect.objectContaining({
        eventId: target,
        assessments: [
          { eventId: verdicts[0], verdict: "disputed" },
          { eventId: verdicts[1], verdict: "false" },
        ],
      }),
    ]);
    const page = await fetch(`${archive.url}/source/${encodeURIComponent("Zhovtneve Rada Office")}`);
    expect(await page.text()).toContain("assessed 2×, latest: false");
    // The assessor's own page lists what it assessed.
    const checker = await call(archive.url, "GET", `/sources/${encodeURIComponent("Fact Check Unit")}`);
    expect(checker.body.items[0].assessed).toEqual([
      { eventId: verdicts[0], targetEventId: target, verdict: "disputed" },
      { eventId: verdicts[1], targetEventId: target, verdict: "false" },
    ]);
  });

  it("finds a source its summary no longer lists: a publisher of a statement, speakers of older statements", async () => {
    expect(ids((await call(archive.url, "GET", "/incidents?source=Kyiv%20Independent")).body)).toEqual([
      "find-lviv-2024",
    ]);
    // The publisher's page lists what it published: the statement, with who said it.
    const published = await call(archive.url, "GET", "/sources/Kyiv%20Independent");
    expect(published.status).toBe(200);
    expect(published.body.items).toMatchObject([
      {
        incidentId: "find-lviv-2024",
        statements: [{ speaker: "Andriy  Sadovyi", publisher: "Kyiv Independent", stance: "condemns" }],
      },
    ]);
    const publishedPage = await (await fetch(`${archive.url}/source/Kyiv%20Independent`)).text();
    expect(publishedPage).toContain("burned for hours");
    // Its name's words find it too: the summary lists a statement's speaker, not its publisher.
    expect(ids((await call(archive.url, "GET", "/incidents?q=independent")).body)).toEqual([
      "find-lviv-2024",
    ]);
    const id = "find-many-speakers-2024";
    const statement = (name: string) => ({
      type: "StatementMade",
      source: { publisher: "Test Wire" },
      attributedTo: { name },
      data: { quote: `Words of ${name}`, stance: "condemns" },
    });
    await call(archive.url, "POST", `/incidents/${id}/events`, opened(id, "Many voices"));
    await call(archive.url, "POST", `/incidents/${id}/events`, statement("Early Speaker"));
    await archive.stream.idle();
    // Twelve more in one batch: the summary lists the latest ten, so "Early Speaker" drops out of
    // it and "Batch Speaker 0" and "1" are never in it.
    const batch = Array.from({ length: 12 }, (_, i) => statement(`Batch Speaker ${i}`));
    expect((await call(archive.url, "POST", `/incidents/${id}/events`, { events: batch })).status).toBe(201);
    await archive.stream.idle();
    const summary = (await call(archive.url, "GET", `/incidents/${id}`)).body;
    const listed = summary.statements.latest.map(
      (s: { attributedTo: { name: string } }) => s.attributedTo.name,
    );
    expect(listed).not.toContain("Early Speaker");
    expect(listed).not.toContain("Batch Speaker 0");
    for (const name of ["Early Speaker", "Batch Speaker 0", "Batch Speaker 11"]) {
      const found = await call(archive.url, "GET", `/incidents?source=${encodeURIComponent(name)}`);
      expect(ids(found.body), name).toEqual([id]);
    }
    const page = await fetch(`${archive.url}/source/${encodeURIComponent("Batch Speaker 0")}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Named in reports of this incident that its summary does not list");
    // Where the statements the summary leaves out are: in the answer, and linked from the page.
    const record = (await call(archive.url, "GET", `/sources/${encodeURIComponent("Batch Speaker 0")}`)).body
      .items[0];
    expect(record.more).toEqual([`/incidents/${id}/statements`]);
    expect(html).toContain(`<a href="/incidents/${id}/statements">every statement</a>`);
    const all = (await call(archive.url, "GET", `/incidents/${id}/statements?limit=100`)).body.items;
    expect(all.map((s: { attributedTo: { name: string } }) => s.attributedTo.name)).toContain(
      "Batch Speaker 0",
    );
  });

  it("finds a private person by the pseudonym the archive shows of them, never by their sealed name", async () => {
    const id = "find-private-witness-2024";
    await call(archive.url, "POST", `/incidents/${id}/events`, opened(id, "A witness speaks"));
    const said = await call(archive.url, "POST", `/incidents/${id}/events`, {
      type: "StatementMade",
      source: { publisher: "Test Wire" },
      attributedTo: { kind: "private", ref: "witness-7", name: "Olena Sealedname", role: "Neighbour" },
      data: { quote: "I heard two blasts.", stance: "neutral" },
    });
    expect(said.status).toBe(201);
    const counted = await call(archive.url, "POST", `/incidents/${id}/events`, {
      type: "CasualtiesReported",
      source: { publisher: "Test Wire" },
      attributedTo: { kind: "private", ref: "witness-7", name: "Olena Sealedname" },
      data: { figures: { injured: { value: 3, qualifier: "at-least" } } },
    });
    expect(counted.status).toBe(201);
    await archive.stream.idle();
    expect(ids((await call(archive.url, "GET", "/incidents?source=witness-7")).body)).toEqual([id]);
    const answer = await call(archive.url, "GET", "/sources/witness-7");
    expect(answer.status).toBe(200);
    expect(answer.body.items).toMatchObject([
      {
        incidentId: id,
        statements: [{ eventId: said.body.events[0].eventId, quote: "I heard two blasts." }],
        figures: [
          {
            category: "injured",
            speaker: "private source witness-7",
            eventId: counted.body.events[0].eventId,
          },
        ],
      },
    ]);
    const page = await (await fetch(`${archive.url}/source/witness-7`)).text();
    expect(page).toContain("I heard two blasts.");
    for (const text of [JSON.stringify(answer.body), page]) expect(text).not.toContain("Sealedname");
    expect((await call(archive.url, "GET", "/sources/Olena%20Sealedname")).status).toBe(404);
  });

  it("is 404 for a source no incident names", async () => {
    const answer = await call(archive.url, "GET", "/sources/Nobody%20At%20All");
    expect(answer.status).toBe(404);
    // Its instance is the path as sent: a URI reference, not the decoded name.
    expect(answer.body.instance).toBe("/sources/Nobody%20At%20All");
    // A name in other capitals is not the source: the answer says so, and where words are found in any case.
    expect(answer.body.detail).toContain("with its capitals as written");
    expect(answer.body.detail).toContain("GET /incidents?q=");
  });

  it("refuses a blank name or one over 300 characters with 400 naming it", async () => {
    for (const name of ["%20", "x".repeat(301)]) {
      const answer = await call(archive.url, "GET", `/sources/${name}`);
      expect(answer.status, name).toBe(400);
      expect(answer.body.errors).toMatchObject([{ path: "path.name" }]);
    }
  });
});

describe("the index follows the summary", () => {
  it("keeps indexing a long contested incident whose denials spilled into stored pieces", async () => {
    const id = "find-spilled-2024";
    await call(archive.url, "POST", `/incidents/${id}/events`, opened(id, "Strike on a river port"));
    // Enough long denials that the oldest are sealed into pieces beside the view (events/spill.ts).
    const denials = Array.from({ length: 30 }, (_, i) => ({
      type: "DenialIssued",
      source: { publisher: "Test Wire" },
      attributedTo: { name: `Ministry ${i}` },
      data: { claim: `responsibility for the strike, in words ${"long ".repeat(180)}${i}` },
    }));
    expect(
      (await call(archive.url, "POST", `/incidents/${id}/events`, { events: denials.slice(0, 15) })).status,
    ).toBe(201);
    expect(
      (await call(archive.url, "POST", `/incidents/${id}/events`, { events: denials.slice(15) })).status,
    ).toBe(201);
    const said = await call(archive.url, "POST", `/incidents/${id}/events`, {
      type: "StatementMade",
      source: { publisher: "Test Wire" },
      attributedTo: { name: "A. Harbourmaster" },
      data: { quote: "The quayside cranes collapsed.", stance: "neutral" },
    });
    expect(said.status).toBe(201);
    await archive.stream.idle();
    const db = createDynamoClient(archive.dynamoEndpoint);
    const view = await db.send(
      new QueryCommand({
        TableName: archive.tables.views,
        KeyConditionExpression: "incidentId = :i",
        ExpressionAttributeValues: { ":i": { S: id } },
      }),
    );
    expect(view.Items?.[0]?.summary, "the view spilled: it stores no summary").toBeUndefined();
    expect(ids((await call(archive.url, "GET", "/incidents?q=quayside")).body)).toEqual([id]);
    expect(ids((await call(archive.url, "GET", "/incidents?q=harbourmaster")).body)).toEqual([id]);
  });

  it("finds a word of a quote its summary no longer shows, until that statement is retracted", async () => {
    const id = "find-old-quotes-2024";
    await call(archive.url, "POST", `/incidents/${id}/events`, opened(id, "Strike on a ferry terminal"));
    const said = (eventId: string, quote: string) => ({
      eventId,
      type: "StatementMade",
      source: { publisher: "Test Wire" },
      attributedTo: { name: "A. Ferryman" },
      data: { quote, stance: "neutral" },
    });
    // Two older statements share "gangway"; each has a word of its own.
    await call(archive.url, "POST", `/incidents/${id}/events`, {
      events: [
        said("old-quote-a", "The gangway and a zeppelin hangar burned."),
        said("old-quote-b", "The gangway held; the walrus statue fell."),
      ],
    });
    await archive.stream.idle();
    // Twelve newer ones in one batch push both out of the summary's latest ten.
    const newer = Array.from({ length: 12 }, (_, i) => said(`new-quote-${i}`, `Routine words ${i}.`));
    expect((await call(archive.url, "POST", `/incidents/${id}/events`, { events: newer })).status).toBe(201);
    await archive.stream.idle();
    const quotes = JSON.stringify(
      (await call(archive.url, "GET", `/incidents/${id}`)).body.statements.latest,
    );
    expect(quotes).not.toContain("zeppelin");
    for (const word of ["zeppelin", "walrus", "gangway"])
      expect(ids((await call(archive.url, "GET", `/incidents?q=${word}`)).body), word).toEqual([id]);
    // Retracted twice, the first statement takes back its own words once: "gangway" is still said.
    for (const eventId of ["retract-old-a", "retract-old-a-again"]) {
      const retracted = await call(archive.url, "POST", `/incidents/${id}/events`, {
        eventId,
        type: "ReportRetracted",
        source: { publisher: "Test Wire" },
        attributedTo: { name: "A. Ferryman" },
        data: { targetEventId: "old-quote-a", reason: "misattributed" },
      });
      expect(retracted.status, eventId).toBe(201);
      await archive.stream.idle();
    }
    expect(ids((await call(archive.url, "GET", "/incidents?q=zeppelin")).body)).toEqual([]);
    expect(ids((await call(archive.url, "GET", "/incidents?q=gangway")).body)).toEqual([id]);
    expect(ids((await call(archive.url, "GET", "/incidents?q=walrus%20ferry")).body)).toEqual([id]);
  });

  it("drops a retracted statement's words, and keeps the incident's other words", async () => {
    const id = "find-retract-2024";
    await call(
      archive.url,
      "POST",
      `/incidents/${id}/events`,
      opened(id, "Strike on a quiet village", { occurredOn: "2024-03-03" }),
    );
    const said = await call(archive.url, "POST", `/incidents/${id}/events`, {
      eventId: "find-retract-statement",
      type: "StatementMade",
      source: { publisher: "Test Wire" },
      attributedTo: { name: "A. Witness" },
      data: { quote: "A xylophone factory was hit.", stance: "neutral" },
    });
    expect(said.status).toBe(201);
    await archive.stream.idle();
    expect(ids((await call(archive.url, "GET", "/incidents?q=xylophone")).body)).toEqual([id]);
    await call(archive.url, "POST", `/incidents/${id}/events`, {
      type: "ReportRetracted",
      source: { publisher: "Test Wire" },
      attributedTo: { name: "A. Witness" },
      data: { targetEventId: "find-retract-statement", reason: "misheard" },
    });
    await archive.stream.idle();
    expect(ids((await call(archive.url, "GET", "/incidents?q=xylophone")).body)).toEqual([]);
    expect(ids((await call(archive.url, "GET", "/incidents?q=quiet%20village")).body)).toEqual([id]);
    // The entry itself is gone, not only filtered out of the answer.
    const db = createDynamoClient(archive.dynamoEndpoint);
    const entries = await db.send(
      new QueryCommand({
        TableName: archive.tables.search,
        KeyConditionExpression: "pk = :p",
        ExpressionAttributeValues: { ":p": { S: "t#xylophone" } },
      }),
    );
    db.destroy();
    expect(entries.Items).toEqual([]);
  });
});
