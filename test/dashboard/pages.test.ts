import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { figureBounds } from "../../events/figures.js";
import type { Figure } from "../../events/schemas.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { bearerToken } from "../../functions/http/auth.js";
import { pageRoutes } from "../../functions/http/routes/site.js";
import { siteDocuments } from "../../functions/http/site-documents.js";
import type { LocalServer } from "../../functions/local/server.js";
import {
  AP,
  BROWSER_ACCEPT,
  call,
  casualties,
  opened,
  post,
  startArchive,
  TOKEN,
} from "../support/archive.js";
import {
  ATTR_BREAKER,
  BORODYANKA,
  BUCHA,
  HOSTILE,
  IMG_QUOTE,
  KRAMATORSK,
  loadHostile,
  loadSample,
  SCRIPT_QUOTE,
} from "./dashboard-kit.js";

/**
 * The dashboard without a browser: the pages are requested in-process with app.request()
 * from an app built over the same archive, and read as text.
 */

let archive: LocalServer;
let app: Hono;
const BUDGET = 200 * 1024;

beforeAll(async () => {
  archive = await startArchive();
  const documents = siteDocuments();
  app = archive.ledger.app(bearerToken(TOKEN, "test-writer"), {
    openApi: documents.openApi,
    pages: pageRoutes(archive.ledger.pageDeps(documents)),
  });
  await loadSample(archive.url, 2);
  await loadHostile(archive.url);
  await archive.stream.idle();
});
afterAll(() => archive.close());

async function page(path: string): Promise<{ status: number; html: string; headers: Headers }> {
  const res = await app.request(path);
  return { status: res.status, html: await res.text(), headers: res.headers };
}

const api = async (path: string) => (await call(archive.url, "GET", path)).body;

const decode = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The data-* attributes of every point the chart of `category` draws. */
function chartPoints(html: string, category: string): Record<string, string>[] {
  const start = html.indexOf(`data-category="${category}">`);
  expect(start, `no chart for ${category}`).toBeGreaterThan(-1);
  const svg = html.slice(start, html.indexOf("</svg>", start));
  return [...svg.matchAll(/<g class="pt[^"]*"([^>]*)>/g)].map((m) =>
    Object.fromEntries(
      [...(m[1] as string).matchAll(/data-([a-z-]+)="([^"]*)"/g)].map((a) => [a[1], decode(a[2] ?? "")]),
    ),
  );
}

function band(html: string, category: string): { low: string; high: string } {
  const start = html.indexOf(`data-category="${category}">`);
  const m = /data-band="" data-low="([^"]*)" data-high="([^"]*)"/.exec(html.slice(start));
  return { low: m?.[1] ?? "missing", high: m?.[2] ?? "missing" };
}

const cards = (html: string) => [...html.matchAll(/data-incident="([^"]+)"/g)].map((m) => m[1]);

describe("page weight", () => {
  it("keeps every list and incident page of the sample under 200 KB, past views included", async () => {
    const paths = ["/", "/?contested=true", "/?kind=mass-grave", "/?country=ua"];
    for (const id of [KRAMATORSK, BUCHA, BORODYANKA]) {
      const { items } = await api(`/incidents/${id}/events`);
      paths.push(`/view/${id}`, ...items.map((e: { version: number }) => `/view/${id}?version=${e.version}`));
    }
    const sizes: Record<string, number> = {};
    for (const path of paths) {
      const { status, html } = await page(path);
      expect(status, path).toBe(200);
      sizes[path] = Buffer.byteLength(html);
    }
    console.log("dashboard page sizes (bytes):", JSON.stringify(sizes, null, 1));
    for (const [path, bytes] of Object.entries(sizes)) expect(bytes, path).toBeLessThan(BUDGET);
  });
});

describe("routes and headers", () => {
  it("serves HTML at / and /view/{id} while /incidents/{id} keeps answering JSON", async () => {
    const json = await app.request(`/incidents/${KRAMATORSK}`);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(((await json.json()) as { incidentId: string }).incidentId).toBe(KRAMATORSK);
    expect((await app.request("/incidents")).headers.get("content-type")).toMatch(/^application\/json/);
    for (const path of ["/", `/view/${KRAMATORSK}`]) {
      const { status, headers, html } = await page(path);
      expect(status).toBe(200);
      expect(headers.get("content-type")).toMatch(/^text\/html/);
      expect(html.startsWith("<!doctype html>")).toBe(true);
    }
  });

  it("forbids script and foreign assets with a Content-Security-Policy, and ships no script at all", async () => {
    const { headers, html } = await page(`/view/${KRAMATORSK}`);
    const csp = headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(html).not.toMatch(/<script|<link|src="http/i);
  });

  it("answers an unknown incident, a bad name and an unreadable moment with a page that says so", async () => {
    const missing = await page("/view/no-such-incident");
    expect(missing.status).toBe(404);
    expect(missing.html).toContain("No such incident");
    expect((await page("/view/NOT_A_SLUG")).status).toBe(404);
    const garbled = await page(`/view/${KRAMATORSK}?asOf=yesterday`);
    expect(garbled.status).toBe(400);
    expect(garbled.html).toContain("is not a date and time");
    const early = await page(`/view/${KRAMATORSK}?asOf=2001-01-01T00:00`);
    expect(early.status).toBe(404);
    expect(early.html).toContain("its first event was recorded at");
    expect((await page(`/view/${KRAMATORSK}?version=99`)).status).toBe(404);
  });

  it("answers a browser's refused request for a page with a page naming the field; a program gets problem+json", async () => {
    const refused = await app.request("/docs?lang=en", { headers: { accept: BROWSER_ACCEPT } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(refused.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await refused.text()).toContain("<code>query.lang</code>: is not a query parameter of this route");
    for (const accept of [
      undefined,
      "*/*",
      "application/json",
      "application/problem+json",
      "application/json, text/html",
      "application/json, text/html;q=0.9",
    ]) {
      const program = await app.request("/docs?lang=en", { headers: accept ? { accept } : {} });
      expect([program.status, program.headers.get("content-type")], String(accept)).toEqual([
        400,
        "application/problem+json",
      ]);
      expect(((await program.json()) as { errors: unknown }).errors).toEqual([
        {
          path: "query.lang",
          message: "is not a query parameter of this route, which takes no query parameters",
        },
      ]);
    }
    const api = await app.request("/incidents?lang=en", { headers: { accept: BROWSER_ACCEPT } });
    expect([api.status, api.headers.get("content-type")]).toEqual([400, "application/problem+json"]);
  });
});

describe("the incident list", () => {
  it("lists every incident with its headline figures as ranges, newest activity first, linking each", async () => {
    const { html } = await page("/");
    expect(cards(html)).toEqual([HOSTILE, BORODYANKA, BUCHA, KRAMATORSK]);
    expect(html).toContain(`href="/view/${KRAMATORSK}"`);
    expect(html).toMatch(/data-headline="killed">at least 50</);
    expect(html).toMatch(/data-headline="killed">about 67</);
    expect(html).toContain("contested: 2 denial(s)");
  });

  it("filters by kind, country and contested through a GET form", async () => {
    expect(cards((await page("/?kind=mass-grave")).html)).toEqual([BUCHA]);
    expect(cards((await page("/?contested=false")).html)).toEqual([BORODYANKA]);
    expect(cards((await page("/?contested=true&kind=missile-strike")).html)).toEqual([KRAMATORSK]);
    expect(cards((await page("/?country=pl")).html)).toEqual([]);
    // Empty fields, as a form submits them, mean "any".
    expect(cards((await page("/?kind=&country=&contested=")).html)).toHaveLength(4);
  });

  it("refuses a malformed filter with a 400 page that marks the field and says why", async () => {
    const { status, html } = await page("/?kind=Not%20A%20Slug");
    expect(status).toBe(400);
    expect(html).toMatch(/id="kind"[^>]*aria-invalid="true"/);
    expect(html).toContain("Kind must be a lowercase slug");
    expect(html).toContain('value="Not A Slug"');
  });
});

describe("the incident page", () => {
  it("says how many were killed according to whom, and who denied what with the experts' verdict", async () => {
    const { html } = await page(`/view/${KRAMATORSK}`);
    expect(html).toMatch(/Killed: <span class="range">at least 50<\/span>/);
    // Each speaker's name leads to their source page.
    expect(html).toMatch(
      /<strong>at least 50<\/strong> according to <a href="\/source\/Ukrainian%20authorities" class="source-link"><bdi>Ukrainian authorities/,
    );
    expect(html).toMatch(
      /<strong>50<\/strong> according to <a href="\/source\/Pavlo%20Kyrylenko" class="source-link"><bdi>Pavlo Kyrylenko<\/bdi><\/a>, <bdi>Governor of Donetsk region/,
    );
    expect(html).toMatch(/data-denial="kramatorsk-peskov-missile-denial" data-status="false"/);
    expect(html).toContain("Experts said that in fact Russian forces have used that type of missile");
    expect(html).not.toContain('class="past-banner"');
  });

  it("names a speaker of dots alone without a link: a browser would read /source/.. as the way up", async () => {
    const id = "dots-speaker";
    expect((await post(archive.url, id, opened())).status).toBe(201);
    const said = { type: "StatementMade", source: AP, data: { quote: "Nothing to add.", stance: "neutral" } };
    expect((await post(archive.url, id, { ...said, attributedTo: { name: ".." } })).status).toBe(201);
    await archive.stream.idle();
    const { html } = await page(`/view/${id}`);
    expect(html).toContain("<bdi>..</bdi>");
    expect(html).not.toContain('href="/source/.."');
  });

  it("draws one chart point per reported figure, matching the stored events, and the summary's band", async () => {
    const { html } = await page(`/view/${KRAMATORSK}`);
    const { items } = await api(`/incidents/${KRAMATORSK}/events`);
    const summary = await api(`/incidents/${KRAMATORSK}`);
    for (const category of Object.keys(summary.casualties)) {
      const expected = (items as StoredEvent[])
        .filter((e) => e.type === "CasualtiesReported" && category in e.data.figures)
        .map((e) => {
          const bounds = figureBounds(e.data.figures[category] as Figure);
          return {
            "event-id": e.eventId,
            version: String(e.version),
            source: e.attributedTo?.name,
            low: String(bounds.low),
            high: bounds.high === null ? "" : String(bounds.high),
            retracted: "false",
          };
        });
      const drawn = chartPoints(html, category).map(({ figure: _f, point: _p, ...rest }) => rest);
      expect(drawn, category).toEqual(expected);
      const { low, high } = summary.casualties[category];
      expect(band(html, category), category).toEqual({ low: String(low ?? ""), high: String(high ?? "") });
    }
  });

  it("shows the integrity badge with the head hash /verify computes", async () => {
    const { html } = await page(`/view/${KRAMATORSK}`);
    const verify = await api(`/incidents/${KRAMATORSK}/verify`);
    expect(verify.ok).toBe(true);
    expect(html).toContain('data-integrity="ok"');
    expect(html).toContain(`<code data-head-hash="">${verify.headHash}</code>`);
  });

  it("renders the page as known at an earlier moment, read as UTC from a datetime-local value", async () => {
    const { items } = await api(`/incidents/${KRAMATORSK}/events`);
    const v5 = Date.parse(items[4].recordedAt);
    const v6 = Date.parse(items[5].recordedAt);
    expect(v6 - v5, "the sample was loaded with pauses").toBeGreaterThan(1);
    // What a datetime-local field submits: no zone, milliseconds.
    const between = new Date(Math.floor((v5 + v6) / 2)).toISOString().slice(0, 23);
    const { status, html } = await page(`/view/${KRAMATORSK}?asOf=${between}`);
    expect(status).toBe(200);
    expect(html).toContain("Past view: as the archive knew it at");
    expect(html).toContain("Showing version 5 of 15");
    expect(chartPoints(html, "killed").map((p) => p.source)).toEqual(["Ukrainian authorities"]);
    expect(html).not.toContain('data-category="childrenKilled"');
    expect(html).toContain("Denials (0)");
    expect(html).toContain("Timeline (5 events)");
    const then = await api(`/incidents/${KRAMATORSK}?asOf=${between}Z`);
    expect(html).toContain(`This past view ends at v5, hash <code>${then.headHash}</code>`);
  });

  it("links every version, and a version link shows the page as it stood after that event", async () => {
    const current = await page(`/view/${KRAMATORSK}`);
    for (let v = 1; v <= 15; v++) expect(current.html).toContain(`href="/view/${KRAMATORSK}?version=${v}"`);
    const { html } = await page(`/view/${KRAMATORSK}?version=6`);
    expect(html).toContain("as the archive stood after version 6");
    expect(chartPoints(html, "killed").map((p) => p.source)).toEqual([
      "Ukrainian authorities",
      "Pavlo Kyrylenko",
    ]);
    expect(html).toContain('data-category="childrenKilled"');
  });
});

describe("retractions", () => {
  const id = "dashboard-retraction";
  beforeAll(async () => {
    expect((await post(archive.url, id, opened("dash-retr-open"))).status).toBe(201);
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 10, qualifier: "exact" } }, "Source A", "dash-retr-a"),
    );
    await post(
      archive.url,
      id,
      casualties({ killed: { value: 30, qualifier: "at-least" } }, "Source B", "dash-retr-b"),
    );
    const retraction = {
      eventId: "dash-retr-x",
      type: "ReportRetracted",
      source: AP,
      attributedTo: { name: "Source B" },
      data: { targetEventId: "dash-retr-b", reason: "counted twice" },
    };
    expect((await post(archive.url, id, retraction)).status).toBe(201);
  });

  it("draws a retracted report hollow and struck through, labelled, and leaves it out of the band", async () => {
    const { html } = await page(`/view/${id}`);
    const [a, b] = chartPoints(html, "killed");
    expect(a).toMatchObject({ source: "Source A", retracted: "false" });
    expect(b).toMatchObject({ source: "Source B", retracted: "true" });
    expect(html).toMatch(/<g class="pt retracted"[^>]*data-event-id="dash-retr-b"/);
    expect(html).toMatch(/class="retracted-label">retracted</);
    expect(html).toContain("hollow, struck through: retracted report");
    expect(html).toMatch(/<s>at least 30<\/s> <strong class="tag tag-retracted">retracted/);
    expect(band(html, "killed")).toEqual({ low: "10", high: "10" });
    expect(html).toMatch(/<li class="event retracted" id="ev-dash-retr-b"/);
    expect(html).toContain("retracted by v4");
  });

  it("does not know of a later retraction in a past view", async () => {
    const { html } = await page(`/view/${id}?version=3`);
    expect(chartPoints(html, "killed").map((p) => p.retracted)).toEqual(["false", "false"]);
    expect(band(html, "killed")).toEqual({ low: "30", high: "" });
  });
});

describe("escaping", () => {
  it("prints every user-supplied string as text, in elements and in attributes", async () => {
    for (const path of ["/", `/view/${HOSTILE}`, `/view/${HOSTILE}?version=3`]) {
      const { html } = await page(path);
      // No markup from the data survives: no script, no img, no svg with a handler, nothing unquoted.
      expect(html, path).not.toMatch(/<script|<img|<svg onload|<b>role|<i>Publisher|<u>Town/i);
      // No event-handler attribute on any real tag (quoted values are blanked: they are escaped text).
      const handlers = (html.match(/<[a-z][^>]*>/gi) ?? []).filter((tag) =>
        /\son[a-z]+=/i.test(tag.replace(/="[^"]*"/g, '=""')),
      );
      expect(handlers, path).toEqual([]);
      expect(html, path).toContain("&lt;script&gt;window.__pwned=1&lt;/script&gt;");
    }
    const { html } = await page(`/view/${HOSTILE}`);
    expect(html).toContain("&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;");
    expect(html).toContain(
      `data-source="${ATTR_BREAKER.replace(/"/g, "&quot;").replace(/>/g, "&gt;").replace(/</g, "&lt;")}"`,
    );
    expect(html).toContain(`<title>\u2068Probe &lt;script&gt;`);
    // The source URL is a real http(s) link, its query escaped inside the attribute.
    expect(html).toMatch(/href="https:\/\/example\.org\/a\?b=(%3C|&lt;)c(%3E|&gt;)&amp;d=/);
    expect(decode(html)).toContain(`${SCRIPT_QUOTE} ${IMG_QUOTE}`);
  });
});

describe("the codebook", () => {
  it("serves the codebook it was given, each section anchored as GitHub anchors it and listed", async () => {
    const { status, html, headers } = await page("/codebook");
    expect(status).toBe(200);
    expect(headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    const markdown = siteDocuments().codebook;
    const sections = [...markdown.matchAll(/^## (.+)$/gm)].map((m) => m[1] as string);
    expect(sections).toContain("Coding for research");
    for (const section of sections) {
      const id = section
        .toLowerCase()
        .replace(/[^\w\- ]/g, "")
        .replace(/ /g, "-");
      expect(html, section).toContain(`<h2 id="${id}">`);
      expect(html, section).toContain(`<li><a href="#${id}">`);
    }
    // The contents come after the title, before the text.
    expect(html.indexOf('<nav aria-label="Contents"')).toBeGreaterThan(html.indexOf("</h1>"));
    expect(html.indexOf('<nav aria-label="Contents"')).toBeLessThan(html.indexOf("<h2 id="));
    // The tables are tables, with the columns the exports write.
    expect(html).toMatch(/<table>[\s\S]*<code>incident_id<\/code>/);
    // Another text, another page: it renders what the wiring gives it, not a file of its own.
    const other = pageRoutes({
      ...archive.ledger.pageDeps({ ...siteDocuments(), codebook: "# Codebook\n\n## Only this\n" }),
    });
    const alone = await (await other.request("/codebook")).text();
    expect(alone).toContain('<h2 id="only-this">Only this</h2>');
    expect(alone).not.toContain("Coding for research");
  });
});
