import { request } from "node:http";
import { connect } from "node:net";
import { GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, startLocalServer } from "../../functions/local/server.js";
import type { Logger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, casualties, opened, post, TOKEN } from "../support/archive.js";

/** What a security review broke (issue 20), one test per finding, on one archive. */

let archive: LocalServer;
const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
const record = (level: string) => (message: string, fields?: Record<string, unknown>) =>
  lines.push({ level, message, ...(fields ? { fields } : {}) });
const log: Logger = { debug() {}, info: record("info"), warn: record("warn"), error: record("error") };

beforeAll(async () => {
  archive = await startLocalServer({ port: 0, dynamoPort: 0, token: TOKEN, log, writer: "test-writer" });
});
afterAll(() => archive?.close());

const page = async (path: string) => {
  const response = await fetch(`${archive.url}${path}`);
  return { status: response.status, headers: response.headers, html: await response.text() };
};

describe("1. keys from client text", () => {
  it("a category named like a built-in property leaves the incident page readable, now and as it stood", async () => {
    const id = "prototype-categories";
    await post(archive.url, id, opened());
    const names = ["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf", "toLocaleString"];
    const answer = await post(
      archive.url,
      id,
      casualties(Object.fromEntries(names.map((n) => [n, { value: 3, qualifier: "exact" }])), "Ministry"),
    );
    expect(answer.status).toBe(201);
    const summary = await call(archive.url, "GET", `/incidents/${id}`);
    expect(Object.keys(summary.body.casualties).sort()).toEqual([...names].sort());
    for (const path of [`/view/${id}`, `/view/${id}?version=2`]) {
      const shown = await page(path);
      expect(shown.status, path).toBe(200);
      expect(shown.html).toContain('data-category="constructor"');
    }
    expect((await page("/")).status).toBe(200);
    const sources = await call(archive.url, "GET", `/incidents/${id}/casualties/constructor/sources`);
    expect(sources.body.items).toHaveLength(1);
    expect((await call(archive.url, "GET", `/incidents/${id}/casualties/__proto__/sources`)).status).toBe(
      404,
    );
  });
});

describe("3. the integrity badge", () => {
  it("shows a failed full check until a full check passes again", async () => {
    const id = "badge-after-tamper";
    await post(archive.url, id, opened());
    await post(archive.url, id, casualties({ killed: { value: 60, qualifier: "exact" } }, "A"));
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body.ok).toBe(true);
    const intact = (await page(`/view/${id}`)).html;
    expect(intact).toContain('data-integrity="ok"');
    expect(intact).toContain("all 2 event(s) re-read and re-hashed for this page, just now.");

    const db = createDynamoClient(archive.dynamoEndpoint);
    const key = { incidentId: { S: id }, version: { N: "2" } };
    const item =
      (await db.send(new GetItemCommand({ TableName: archive.tables.events, Key: key }))).Item ?? {};
    const original = structuredClone(item);
    const events = item.events?.L ?? [];
    events[0] = { S: (events[0]?.S ?? "").replace('"value":60', '"value":6') };
    await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: item }));

    // The page itself finds the edit, though a full check passed before it: the incident is short.
    const seen = await page(`/view/${id}`);
    expect(seen.html).toContain('data-integrity="broken"');
    expect(seen.html).not.toContain("Hash chain intact");
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body).toMatchObject({
      ok: false,
      firstBadVersion: 2,
    });
    const broken = await page(`/view/${id}`);
    expect(broken.html).toContain('data-integrity="broken"');
    expect(broken.html).not.toContain("Hash chain intact");

    await db.send(new PutItemCommand({ TableName: archive.tables.events, Item: original }));
    expect((await page(`/view/${id}`)).html).toContain('data-integrity="broken"');
    expect((await call(archive.url, "GET", `/incidents/${id}/verify`)).body.ok).toBe(true);
    expect((await page(`/view/${id}`)).html).toContain('data-integrity="ok"');
    db.destroy();
  });
});

describe("4. one key per source", () => {
  it("counts José in NFC, in NFD and with stray spaces as one source, whose correction replaces its figure", async () => {
    const id = "one-source-many-spellings";
    await post(archive.url, id, opened());
    await post(archive.url, id, casualties({ killed: { value: 10, qualifier: "exact" } }, "José Pérez"));
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 5, qualifier: "exact" } }, " Jose\u0301  Pe\u0301rez ".normalize("NFD")),
    );
    const killed = (await call(archive.url, "GET", `/incidents/${id}`)).body.casualties.killed;
    expect(killed).toMatchObject({ low: 5, high: 5, sourceCount: 1, reports: 2 });
    // The name is kept as the latest report sent it.
    expect(killed.bySource[0].attributedTo.name).toBe(" Jose\u0301  Pe\u0301rez ".normalize("NFD"));
  });
});

describe("5. bounded error lists", () => {
  it("lists at most 100 errors and says how many more were left out, quickly", async () => {
    const id = "many-errors";
    const events = Array.from({ length: 25 }, (_, i) =>
      casualties(
        Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`c${"a".repeat(k + 1)}`, { value: -1 }])),
        `S${i}`,
      ),
    );
    const started = performance.now();
    const answer = await post(archive.url, id, { events });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toHaveLength(100);
    expect(answer.body.errorsOmitted).toBeGreaterThan(1000);
    // The detail names the first three and counts the others, so its count adds up.
    const [, all, more] =
      /^(\d+) fields failed: [^;]+; [^;]+; [^;]+; and (\d+) more \(see errors\); nothing was stored$/.exec(
        answer.body.detail,
      ) ?? [];
    expect([Number(all), Number(more)], answer.body.detail).toEqual([
      100 + answer.body.errorsOmitted,
      97 + answer.body.errorsOmitted,
    ]);
    // A report with thousands of figures is refused whole, not figure by figure.
    const crowded = casualties(
      Object.fromEntries(
        Array.from({ length: 10_000 }, (_, k) => [`c${k.toString(36).replace(/\d/g, "x")}`, { value: -1 }]),
      ),
    );
    const one = await post(archive.url, id, crowded);
    expect(one.status).toBe(422);
    expect(one.body.errors).toEqual([expect.objectContaining({ path: "data.figures" })]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("6. filters that match nothing", () => {
  it("read a bounded stretch of the listing per request, and a short page says where to go on", async () => {
    for (let i = 0; i < 12; i++) await post(archive.url, `listed-${i}`, opened());
    const first = await archive.ledger.views.list({ kind: "zz", limit: 20, readMax: 5 });
    expect(first.items).toEqual([]);
    expect(first.next).not.toBeNull();
    let pages = 1;
    let next = first.next;
    while (next && pages < 100) {
      next = (await archive.ledger.views.list({ kind: "zz", limit: 20, readMax: 5, cursor: next })).next;
      pages++;
    }
    expect(next).toBeNull();
    expect(pages).toBeGreaterThan(2);
    const answer = await call(archive.url, "GET", "/incidents?kind=zz");
    expect(answer.status).toBe(200);
    expect(answer.body.items).toEqual([]);
  });
});

describe("7. a configured public origin", () => {
  it("builds release links and citations on it, never on the request's Host", async () => {
    await archive.logWriter.pass();
    const body = JSON.stringify({ name: "hostile-origin", note: "" });
    const answer = await new Promise<{ status: number; location: string; body: string }>(
      (resolve, reject) => {
        const req = request(`${archive.url}/releases`, {
          method: "POST",
          headers: {
            host: "attacker.example",
            authorization: `Bearer ${TOKEN}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        });
        req.on("response", (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, location: String(res.headers.location), body: text }),
          );
        });
        req.on("error", reject);
        req.end(body);
      },
    );
    expect(answer.status).toBe(201);
    const origin = archive.url.replace("127.0.0.1", "localhost");
    expect(answer.location).toBe(`${origin}/releases/hostile-origin`);
    expect(answer.body).not.toContain("attacker.example");
  });
});

describe("8. the small ones", () => {
  it("logs a dropped upload as the client closing the connection, not as an error", async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(archive.url).port), "127.0.0.1", () => {
        socket.write(
          `POST /incidents/dropped-upload/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"type":`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
    expect(lines.some((l) => l.message === "client closed the connection")).toBe(true);
  });

  it("refuses duplicate member names with 400, at any depth, escaped or not", async () => {
    for (const body of [
      '{"type":"IncidentOpened","type":"IncidentOpened","source":{"publisher":"AP"},"data":{}}',
      '{"events":[{"type":"IncidentOpened","source":{"publisher":"AP","publisher":"BBC"},"data":{}}]}',
      '{"type":"IncidentOpened","source":{"publisher":"AP"},"data":{"title":"t","\\u0074itle":"u"}}',
    ]) {
      const answer = await post(archive.url, "duplicate-names", body);
      expect(answer.status, body).toBe(400);
      expect(answer.body.errors[0].message).toMatch(/repeats the member name/);
    }
    // The same name in two different objects is fine.
    expect(
      (await post(archive.url, "duplicate-names", opened("dup-names-open", { description: "t" }))).status,
    ).toBe(201);
  });

  it("refuses a body nested deeper than any event with 400, storing nothing; within the bound, fields are named", async () => {
    const statement = {
      type: "StatementMade",
      source: { publisher: "AP" },
      attributedTo: { name: "Spokesperson" },
      data: { quote: "q", stance: "neutral" },
    };
    const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
    const id = "deeply-nested";
    await post(archive.url, id, opened());
    for (const body of [
      `${JSON.stringify(statement).slice(0, -2)},"x":${deep(5000)}}}`,
      `{"events":[${JSON.stringify({ ...statement, evidence: [] }).replace('"evidence":[]', `"evidence":${deep(10000)}`)}]}`,
    ]) {
      const answer = await post(archive.url, id, body);
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([
        { path: "(body)", message: "nests objects and arrays more than 64 levels deep" },
      ]);
    }
    // The event, its data and 62 arrays: 64 levels, refused field by field as any unknown field
    // is; one level more is refused as a body. A batch's body and list are two levels more.
    const nested = (levels: number) => `${JSON.stringify(statement).slice(0, -2)},"x":${deep(levels)}}}`;
    expect((await post(archive.url, id, nested(62))).status).toBe(422);
    expect((await post(archive.url, id, nested(63))).status).toBe(400);
    expect((await post(archive.url, id, `{"events":[${nested(60)}]}`)).status).toBe(422);
    expect((await post(archive.url, id, `{"events":[${nested(61)}]}`)).status).toBe(400);
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(1);
  });

  it("answers an unauthenticated write 401 before looking at its query", async () => {
    const answer = await call(archive.url, "POST", "/incidents/whatever/events?bogus=1", opened(), {
      authorization: "",
    });
    expect(answer.status).toBe(401);
    const release = await call(
      archive.url,
      "POST",
      "/releases?bogus=1",
      { name: "x" },
      { authorization: "" },
    );
    expect(release.status).toBe(401);
  });

  it("sends nosniff with every answer: JSON, pages, /docs, problems and 405s", async () => {
    for (const [method, path] of [
      ["GET", "/health"],
      ["GET", "/incidents"],
      ["GET", "/openapi.json"],
      ["GET", "/docs"],
      ["GET", "/"],
      ["GET", "/nowhere"],
      ["DELETE", "/incidents"],
      ["GET", "/incidents?bogus=1"],
    ] as const) {
      const response = await fetch(`${archive.url}${path}`, { method });
      await response.arrayBuffer();
      expect(response.headers.get("x-content-type-options"), `${method} ${path}`).toBe("nosniff");
    }
  });

  it("refuses a date after the day a report is recorded, naming it, storing nothing; today's is taken", async () => {
    const id = "a-year-typed-wrong";
    const today = new Date().toISOString().slice(0, 10);
    const ahead = `${Number(today.slice(0, 4)) + 36}${today.slice(4)}`;
    const refused = await post(archive.url, id, opened(undefined, { occurredOn: ahead }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      {
        path: "data.occurredOn",
        message: `must not be after the day it is recorded (${today}): a report tells what has happened`,
      },
    ]);
    expect((await call(archive.url, "GET", `/incidents/${id}`)).status).toBe(404);
    expect((await post(archive.url, id, opened(undefined, { occurredOn: today }))).status).toBe(201);
    const batch = await post(archive.url, id, {
      events: [
        casualties({ killed: { value: 3, qualifier: "exact" } }),
        { ...casualties({ killed: { value: 4, qualifier: "exact" } }), occurredAt: `${ahead}T09:00:00Z` },
      ],
    });
    expect([batch.status, batch.body.errors.map((e: { path: string }) => e.path)]).toEqual([
      422,
      ["events[1].occurredAt"],
    ]);
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(1);
  });

  it("refuses an impossible date on the dashboard, as the API does", async () => {
    const id = "impossible-dates";
    await post(archive.url, id, opened());
    expect((await page(`/view/${id}?asOf=2099-02-31T00:00`)).status).toBe(400);
    expect((await page(`/view/${id}?asOf=2099-02-31T00:00:00Z`)).status).toBe(400);
    expect((await call(archive.url, "GET", `/incidents/${id}?asOf=2099-02-31T00:00:00Z`)).status).toBe(400);
    expect((await page(`/view/${id}?asOf=2099-02-28T00:00`)).status).toBe(200);
  });

  it("isolates every client text on pages, bidi overrides included", async () => {
    const id = "bidi-isolation";
    const name = "Evil\u202Egnissim";
    await post(
      archive.url,
      id,
      opened(undefined, {
        title: "Title\u202Eeltit",
        location: {
          name: "Place\u202Eecalp",
          region: "Region\u202Enoiger",
          country: "UA",
          lat: 48.7,
          lon: 37.5,
        },
      }),
    );
    await post(archive.url, id, {
      type: "StatementMade",
      source: { publisher: "Pub\u202Ebup" },
      attributedTo: { name, role: "Role\u202Eelor", side: "Side\u202Eedis" },
      data: { quote: "Quote\u202Eetouq", stance: "condemns" },
    });
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 1, qualifier: "exact", text: "one\u202Eeno" } }, name),
    );
    await archive.stream.idle();
    const paths = [
      `/view/${id}`,
      `/source/${encodeURIComponent(name)}`,
      `/source/${encodeURIComponent("Nobody\u202Eydobon")}`,
      "/map?bbox=37,48,38,49",
      "/",
    ];
    for (const path of paths) {
      const { html } = await page(path);
      const occurrences = html.split("\u202E").length - 1;
      // Each one inside an element that isolates it (<bdi>, or one with dir="auto"), in an
      // attribute's value, or, in a document's or an SVG's title, between FSI and PDI.
      const isolated =
        (html.match(/<bdi>[^<]*\u202E[^<]*<\/bdi>/g) ?? []).length +
        (html.match(/dir="auto"[^>]*>[^<]*\u202E[^<]*</g) ?? []).length +
        (html.match(/="[^"]*\u202E[^"]*"/g) ?? []).length +
        (html.match(/<(?:title|desc)[^>]*>[^<]*\u2068[^<\u2069]*\u202E[^<\u2069]*\u2069[^<]*</g) ?? [])
          .length;
      expect(occurrences, path).toBeGreaterThan(0);
      expect(isolated, path).toBe(occurrences);
      // Each text in an isolate of its own: an override in a name cannot turn the role after it.
      expect(html.match(/<bdi>[^<]*\u202E[^<]*\u202E[^<]*<\/bdi>/g), path).toBeNull();
    }
  });
});

describe("8b. text that HTML escapes", () => {
  it("keeps an incident page under 1 MB when its long texts are all ampersands: its casualties listed, not drawn", async () => {
    const id = "ampersand-page";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    const amps = (n: number, seed: string) => `${seed}${"&".repeat(n - seed.length)}`;
    const categories = Array.from(
      { length: 64 },
      (_, i) => `amp${"ABC"[Math.floor(i / 26)]}${"abcdefghijklmnopqrstuvwxyz"[i % 26]}`,
    );
    const report = (source: number, round: number) => ({
      type: "CasualtiesReported",
      source: { publisher: amps(300, `Pub${source} `), title: amps(500, "T") },
      attributedTo: { name: amps(300, `Src${source} `), role: amps(300, "R"), side: amps(100, "S") },
      data: {
        figures: Object.fromEntries(
          categories
            .slice(round === 0 ? 0 : 14, round === 0 ? 50 : 64)
            .map((c, i) => [c, { min: i, max: i + source, text: amps(500, `t${source}`) }]),
        ),
      },
    });
    const reports = Array.from({ length: 120 }, (_, i) => report(i % 60, Math.floor(i / 60)));
    for (let at = 0; at < reports.length; at += 8) {
      const answer = await post(archive.url, id, { events: reports.slice(at, at + 8) });
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(201);
    }
    await archive.stream.idle();
    for (const path of [`/view/${id}`, `/view/${id}?before=60`, `/view/${id}?version=100`]) {
      const { status, html } = await page(path);
      expect(status, path).toBe(200);
      expect(Buffer.byteLength(html), path).toBeLessThanOrEqual(1024 * 1024);
      expect(html, path).toContain("data-compact");
      expect(html.match(/<li data-category="amp/g), path).toHaveLength(64);
    }
    // An incident of plain length is drawn in full.
    expect((await page("/view/bidi-isolation")).html).not.toContain("data-compact");
  });
});

describe("9. what the fuzzer found in the document", () => {
  it("declares the dashboard's filters as the page checks them", async () => {
    const doc = (await call(archive.url, "GET", "/openapi.json")).body;
    const parameters = doc.paths["/"].get.parameters as { name: string; schema: Record<string, unknown> }[];
    const of = (name: string) => parameters.find((p) => p.name === name)?.schema;
    expect(of("contested")?.enum).toEqual(["true", "false", ""]);
    expect(new RegExp(of("kind")?.pattern as string).test("zz z")).toBe(false);
    expect(new RegExp(of("country")?.pattern as string).test("UKR")).toBe(false);
  });

  it("reaches a tile whose index a client sends as one encoded path parameter, and refuses what the pattern refuses", async () => {
    await archive.logWriter.pass();
    const plain = await fetch(`${archive.url}/log/tile/0/000.p/1`);
    const encoded = await fetch(`${archive.url}/log/tile/0/000.p%2F1`);
    expect(plain.status).toBe(200);
    expect(encoded.status).toBe(200);
    expect(Buffer.from(await encoded.arrayBuffer())).toEqual(Buffer.from(await plain.arrayBuffer()));
    const doc = (await call(archive.url, "GET", "/openapi.json")).body;
    const pattern = new RegExp(
      doc.paths["/log/tile/{L}/{N}"].get.parameters.find((p: { name: string }) => p.name === "N").schema
        .pattern,
    );
    for (const refused of ["x000/000", "000.p/300", "000.p/0", "000.p/256"]) {
      expect(pattern.test(refused), refused).toBe(false);
      expect((await fetch(`${archive.url}/log/tile/0/${refused}`)).status, refused).toBe(400);
    }
    for (const taken of ["000", "x001/234", "000.p/255"]) expect(pattern.test(taken), taken).toBe(true);
  });

  it("takes a release note as events' text: counted in code points, lone surrogates refused", async () => {
    await archive.logWriter.pass();
    const emoji = "😀".repeat(1001);
    expect((await call(archive.url, "POST", "/releases", { name: "note-emoji", note: emoji })).status).toBe(
      201,
    );
    const lone = await call(archive.url, "POST", "/releases", '{"name":"note-lone","note":"a\\ud800b"}');
    expect(lone.status).toBe(422);
    expect(lone.body.errors[0].path).toBe("note");
    expect((await call(archive.url, "POST", "/releases", { name: "note-blank", note: "   " })).status).toBe(
      422,
    );
  });

  /** What the server answers to `raw`, written to its socket as is, read until it closes. */
  const rawAnswer = (raw: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(archive.url).port), "127.0.0.1", () => socket.write(raw));
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
      });
      socket.on("close", () => resolve(text));
    });

  it("answers a header with a control character with a problem document", async () => {
    const answer = await rawAnswer("GET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/Content-Type: application\/problem\+json/i);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    expect(body).toMatchObject({ status: 400, errors: [expect.objectContaining({ path: "headers" })] });
  });

  it("answers an HTTP/1.1 request without Host with a problem document too; HTTP/1.0 may omit it", async () => {
    const answer = await rawAnswer("GET /health HTTP/1.1\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/i);
    expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    expect(body).toMatchObject({ status: 400, errors: [expect.objectContaining({ path: "headers.host" })] });
    expect(await rawAnswer("GET /health HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 200 /);
  });

  it("refuses a query parameter given twice, naming it, rather than taking the first", async () => {
    for (const query of ["from=2022-04-08&from=2022-05-01", "limit=5&limit=50", "q=odesa&q=kyiv"]) {
      const answer = await call(archive.url, "GET", `/incidents?${query}`);
      expect(answer.status, query).toBe(400);
      expect(
        answer.body.errors.map((e: { path: string }) => e.path),
        query,
      ).toEqual([`query.${query.split("=")[0]}`]);
    }
  });

  it("opens a page whose link carries a tracker's parameters, which the API refuses", async () => {
    await post(archive.url, "query-pages", opened());
    for (const path of ["/?fbclid=IwAR0x&utm_source=share", "/view/query-pages?utm_source=share"]) {
      const answer = await fetch(`${archive.url}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type"), path).toMatch(/^text\/html/);
    }
    const api = await call(archive.url, "GET", "/incidents?utm_source=share");
    expect(api.status).toBe(400);
    expect(api.body.errors[0].path).toBe("query.utm_source");
  });
});
