import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, startArchive } from "../support/archive.js";
import { launchChromium } from "../support/chromium.js";
import { loadSample, opened } from "./finding-kit.js";

/**
 * The map, the search box and a source page in headless Chromium (Debian's), with JavaScript
 * off: each is read as served, under the pages' strict CSP (a violation is reported by the
 * browser and fails the test). Screenshots go to test-artifacts/.
 */
const ARTIFACTS = join(process.cwd(), "test-artifacts");

let archive: LocalServer;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  [archive, browser] = await Promise.all([startArchive(), launchChromium()]);
  await loadSample(archive);
  const places: [string, string, number, number][] = [
    ["map-kharkiv-2022", "Strike on Kharkiv square", 49.99, 36.23],
    ["map-odesa-2023", "Strike on Odesa port", 46.48, 30.72],
    ["map-lviv-2024", "Drone strike on Lviv", 49.84, 24.03],
  ];
  for (const [id, title, lat, lon] of places) {
    await call(
      archive.url,
      "POST",
      `/incidents/${id}/events`,
      opened(id, title, { occurredOn: "2023-01-01", location: { name: title, country: "UA", lat, lon } }),
    );
  }
  await archive.stream.idle();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await archive?.close();
});

async function open(path: string) {
  const context = await browser.newContext({
    javaScriptEnabled: false,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  const response = await page.goto(`${archive.url}${path}`);
  return { page, response, violations, close: () => context.close() };
}

describe("the map page", () => {
  it("draws the boundaries and one linked mark per incident with coordinates, without JavaScript, within the CSP", async () => {
    const { page, response, violations, close } = await open("/map");
    expect(response?.status()).toBe(200);
    const svg = page.locator("svg.world-map");
    await expect(svg.count()).resolves.toBe(1);
    expect(await page.locator("svg.world-map g path").count()).toBeGreaterThan(100);
    const marks = page.locator("svg.world-map a[data-incident]");
    const ids = await marks.evaluateAll((as) => as.map((a) => a.getAttribute("data-incident")));
    expect(ids).toEqual(
      expect.arrayContaining([
        "map-kharkiv-2022",
        "map-odesa-2023",
        "map-lviv-2024",
        "kramatorsk-station-2022-04-08",
      ]),
    );
    // Every mark is inside the drawing and links to its incident.
    for (const id of ids) {
      const mark = page.locator(`svg.world-map a[data-incident="${id}"]`);
      expect(await mark.getAttribute("href")).toBe(`/view/${id}`);
      const box = await mark.boundingBox();
      expect(box?.width).toBeGreaterThan(0);
    }
    await page.screenshot({ path: join(ARTIFACTS, "map.png"), fullPage: false });
    expect(violations).toEqual([]);
    await close();
  });

  it("applies the list's filters: a box shows only what lies in it", async () => {
    const { page, close } = await open("/map?bbox=29,45,32,48");
    const ids = await page
      .locator("svg.world-map a[data-incident]")
      .evaluateAll((as) => as.map((a) => a.getAttribute("data-incident")));
    expect(ids).toEqual(["map-odesa-2023"]);
    await page.screenshot({ path: join(ARTIFACTS, "map-odesa.png") });
    await close();
    // The form shows what the map was asked for and keeps the list's other filters when sent.
    const kept = await open("/map?bbox=29,45,32,48&country=UA&from=2022-06-01&utm_source=x");
    expect(await kept.page.inputValue("#map-bbox")).toBe("29,45,32,48");
    expect(await kept.page.locator("[data-kept-filters]").textContent()).toContain(
      "from 2022-06-01, country UA",
    );
    await kept.page.fill("#map-bbox", "20,40,40,55");
    await kept.page.click("form.filters button[type=submit]");
    await kept.page.waitForURL(/bbox=20%2C40%2C40%2C55/);
    const url = new URL(kept.page.url());
    expect([
      url.searchParams.get("country"),
      url.searchParams.get("from"),
      url.searchParams.has("utm_source"),
    ]).toEqual(["UA", "2022-06-01", false]);
    const widened = await kept.page
      .locator("svg.world-map a[data-incident]")
      .evaluateAll((as) => as.map((a) => a.getAttribute("data-incident")));
    expect(widened).toEqual(expect.arrayContaining(["map-kharkiv-2022", "map-odesa-2023", "map-lviv-2024"]));
    expect(widened).not.toContain("kramatorsk-station-2022-04-08");
    await kept.close();
    const bad = await open("/map?bbox=40,10,30,20");
    expect(bad.response?.status()).toBe(400);
    expect(await bad.page.locator("[data-field=bbox]").textContent()).toMatch(/minimum at most its maximum/);
    await bad.close();
  });
});

describe("the search box and the source page", () => {
  it("searches from the list's form and opens a source's page", async () => {
    const { page, close } = await open("/");
    await page.fill("#q", "Odesa");
    await page.click("button[type=submit]");
    await page.waitForURL(/q=Odesa/);
    const cards = await page
      .locator("article.card")
      .evaluateAll((as) => as.map((a) => a.getAttribute("data-incident")));
    expect(cards).toEqual(["map-odesa-2023"]);
    await page.goto(`${archive.url}/source/${encodeURIComponent("Dmitry Peskov")}`);
    expect(await page.locator("h1").textContent()).toBe("Source: Dmitry Peskov");
    expect(await page.locator("article.card").count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, "source-page.png"), fullPage: true });
    const missing = await page.goto(`${archive.url}/source/dmitry%20peskov`);
    expect(missing?.status()).toBe(404);
    // Another case of a known name: the page offers the search, which finds it in any case.
    await page.click("text=Search for the words of that name");
    await page.waitForURL(/q=dmitry\+peskov/);
    expect(await page.locator("article.card").count()).toBeGreaterThan(0);
    await close();
  });
});

describe("a map of more incidents than it draws", () => {
  it("draws the 100 most recent and says that more match, with a way to the rest", async () => {
    const before = await open("/map");
    expect(await before.page.locator("figcaption").textContent()).toMatch(/^\d+ incident\(s\) shown\./);
    await before.close();
    // Villages west of Lviv, one a day: with the others, more than a map draws.
    const events = Array.from({ length: 101 }, (_, i) => {
      const id = `map-village-${String(i).padStart(3, "0")}`;
      const day = new Date(Date.UTC(2024, 0, 1 + i)).toISOString().slice(0, 10);
      return call(
        archive.url,
        "POST",
        `/incidents/${id}/events`,
        opened(id, `Shelling of village ${i}`, {
          occurredOn: day,
          location: { name: `Village ${i}`, country: "UA", lat: 49.5 + i / 1000, lon: 23.5 },
        }),
      );
    });
    for (const answer of await Promise.all(events)) expect(answer.status).toBe(201);
    await archive.stream.idle();
    const { page, close } = await open("/map");
    const ids = await page
      .locator("svg.world-map a[data-incident]")
      .evaluateAll((as) => as.map((a) => a.getAttribute("data-incident")));
    expect(ids).toHaveLength(100);
    // The newest first: the last village drawn, the oldest incidents left to the list.
    expect(ids).toContain("map-village-100");
    expect(ids).not.toContain("map-kharkiv-2022");
    const caption = await page.locator("figcaption").textContent();
    expect(caption).toMatch(/^The 100 most recent of the incidents that match; more match/);
    expect(await page.locator("figcaption a").getAttribute("href")).toBe("/?");
    await close();
    // With words, the map draws the best matches, and says so.
    const words = await open("/map?q=village");
    expect(await words.page.locator("svg.world-map a[data-incident]").count()).toBe(100);
    expect(await words.page.locator("figcaption").textContent()).toMatch(
      /^The 100 best matches of the incidents that match; more match/,
    );
    await words.close();
    // Exactly as many as it draws (the villages from the second day on): nothing more is said to match.
    const exact = await open("/map?from=2024-01-02");
    expect(await exact.page.locator("svg.world-map a[data-incident]").count()).toBe(100);
    expect(await exact.page.locator("figcaption").textContent()).toMatch(/^100 incident\(s\) shown\./);
    await exact.close();
  });
});
