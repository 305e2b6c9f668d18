import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { call, startArchive } from "../support/archive.js";
import { launchChromium } from "../support/chromium.js";
import {
  BUCHA,
  HOSTILE,
  IMG_QUOTE,
  KRAMATORSK,
  loadHostile,
  loadSample,
  SCRIPT_QUOTE,
} from "./dashboard-kit.js";

/**
 * The dashboard in real headless Chromium (Debian's package, driven by playwright-core):
 * the sample is posted through the HTTP API, then a person's path is followed — list,
 * filter, incident, an earlier moment — plus the escaping case and a phone-sized screen.
 * Screenshots go to test-artifacts/; UPDATE_DOCS_SCREENSHOT=1 also refreshes docs/dashboard.png.
 */

// Callbacks given to page.evaluate run inside the page; the project compiles without the DOM
// library, so the browser globals they use are declared here, loosely and for this file only.
// biome-ignore lint/suspicious/noExplicitAny: browser globals, checked by the assertions instead.
declare const document: any, window: any, getComputedStyle: any;

const ARTIFACTS = join(process.cwd(), "test-artifacts");

let archive: LocalServer;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  [archive, browser] = await Promise.all([startArchive(), launchChromium()]);
  // Small pauses keep the recordedAt values apart, so "between v5 and v6" exists at millisecond precision.
  await loadSample(archive.url, 5);
  await loadHostile(archive.url);
  await archive.stream.idle();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: "en-US" });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await archive?.close();
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  // Any dialog (alert from injected script) fails the test that opened the page.
  page.on("dialog", (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });
  const answer = await page.goto(`${archive.url}${path}`);
  expect(answer?.status(), path).toBe(200);
  return page;
}

/** Long pages are shot as their first screens only: encoding a 7,000-pixel PNG costs seconds. */
const shot = (page: Page, name: string, fullPage = false) =>
  page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
const cardIds = (page: Page) =>
  page.locator("[data-incident]").evaluateAll((els) => els.map((e) => e.getAttribute("data-incident")));
const api = async (path: string) => (await call(archive.url, "GET", path)).body;

interface Point {
  source: string;
  eventId: string;
  version: number;
  low: string;
  high: string;
  retracted: string;
}
const points = (page: Page, category: string): Promise<Point[]> =>
  page.locator(`svg[data-category="${category}"] [data-point]`).evaluateAll((els) =>
    els.map((e) => ({
      source: e.getAttribute("data-source") ?? "",
      eventId: e.getAttribute("data-event-id") ?? "",
      version: Number(e.getAttribute("data-version")),
      low: e.getAttribute("data-low") ?? "",
      high: e.getAttribute("data-high") ?? "",
      retracted: e.getAttribute("data-retracted") ?? "",
    })),
  );

describe("the dashboard in Chromium", () => {
  it("lists the incidents and filters them with the form", async () => {
    const page = await open("/");
    expect(await cardIds(page)).toHaveLength(4);
    await expect(
      page.locator(`[data-incident="${KRAMATORSK}"] [data-headline="killed"]`).textContent(),
    ).resolves.toBe("at least 50");
    await shot(page, "dashboard-list", true);

    await page.getByLabel("Kind", { exact: true }).fill("mass-grave");
    await Promise.all([
      page.waitForURL(/kind=mass-grave/),
      page.getByRole("button", { name: "Filter" }).click(),
    ]);
    expect(await cardIds(page)).toEqual([BUCHA]);
    await expect(page.getByLabel("Kind", { exact: true }).inputValue()).resolves.toBe("mass-grave");

    await page.getByRole("link", { name: "Clear filters" }).click();
    await page.getByLabel("Contested", { exact: true }).selectOption("false");
    await Promise.all([
      page.waitForURL(/contested=false/),
      page.getByRole("button", { name: "Filter" }).click(),
    ]);
    const uncontested = await cardIds(page);
    expect(uncontested).toEqual(["borodyanka-bodies-2022-04-07"]);
    await shot(page, "dashboard-list-filtered", true);
    await page.close();
  });

  it("opens the Kramatorsk incident, whose chart points are the reported figures", async () => {
    const page = await open("/");
    await Promise.all([
      page.waitForURL(/\/view\/kramatorsk/),
      page.getByRole("link", { name: "Missile strike on Kramatorsk railway station" }).click(),
    ]);
    await expect(page.locator("h1").textContent()).resolves.toBe(
      "Missile strike on Kramatorsk railway station",
    );

    const { items } = await api(`/incidents/${KRAMATORSK}/events`);
    const summary = await api(`/incidents/${KRAMATORSK}`);
    const killedReports = items.filter(
      (e: { type: string; data: { figures?: object } }) =>
        e.type === "CasualtiesReported" && "killed" in (e.data.figures ?? {}),
    );
    expect(await points(page, "killed")).toEqual([
      {
        source: "Ukrainian authorities",
        eventId: "kramatorsk-ua-authorities-toll",
        version: killedReports[0].version,
        low: "50",
        high: "",
        retracted: "false",
      },
      {
        source: "Pavlo Kyrylenko",
        eventId: "kramatorsk-governor-toll",
        version: killedReports[1].version,
        low: "50",
        high: "50",
        retracted: "false",
      },
    ]);
    // Every category the summary has is charted, one point per report of it.
    for (const [category, c] of Object.entries(summary.casualties as Record<string, { reports: number }>))
      expect(await points(page, category), category).toHaveLength(c.reports);
    const band = page.locator('svg[data-category="killed"] [data-band]');
    await expect(band.getAttribute("data-low")).resolves.toBe(String(summary.casualties.killed.low));
    await expect(band.getAttribute("data-high")).resolves.toBe("");
    // The legend names the sources; the table fallback holds the same reports.
    const killed = page.locator('section[data-category="killed"]');
    await expect(killed.locator(".legend").textContent()).resolves.toMatch(
      /Ukrainian authorities.*Pavlo Kyrylenko/,
    );
    await killed.getByText("Reports of killed as a table").click();
    expect(await killed.locator("tbody tr").count()).toBe(2);
    // The chart is an image with a name for assistive technology.
    await expect(
      page.getByRole("img", { name: /^Killed: each source's figure over time/ }).count(),
    ).resolves.toBe(1);

    const verify = await api(`/incidents/${KRAMATORSK}/verify`);
    await expect(page.locator("[data-head-hash]").textContent()).resolves.toBe(verify.headHash);
    const peskov = page.locator('[data-denial="kramatorsk-peskov-missile-denial"]');
    await expect(peskov.getAttribute("data-status")).resolves.toBe("false");
    await expect(peskov.textContent()).resolves.toContain("Experts cited by AP");
    expect(await page.locator("#timeline li.event").count()).toBe(items.length);

    await shot(page, "dashboard-incident");
    if (process.env.UPDATE_DOCS_SCREENSHOT) {
      const file = join(process.cwd(), "docs", "dashboard.png");
      await killed.getByText("Reports of killed as a table").click(); // closed again: the screenshot shows the chart
      // fullPage makes the clip page-relative: the top of the page, whatever was scrolled to.
      await page.screenshot({ path: file, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 1320 } });
      expect(statSync(file).size).toBeLessThan(300 * 1024);
    }
    await page.close();
  });

  it("shows the page as known at an earlier moment, marked as a past view", async () => {
    const { items } = await api(`/incidents/${KRAMATORSK}/events`);
    const v5 = Date.parse(items[4].recordedAt);
    const v6 = Date.parse(items[5].recordedAt); // the governor's toll, with children killed
    expect(v6 - v5, "the sample was posted with pauses").toBeGreaterThan(1);
    const between = new Date(Math.floor((v5 + v6) / 2)).toISOString();

    const page = await open(`/view/${KRAMATORSK}`);
    expect(await page.locator(".past-banner").count()).toBe(0);
    await page.getByLabel("Date and time (UTC)").fill(between.slice(0, 23));
    await Promise.all([page.waitForURL(/asOf=/), page.getByRole("button", { name: "Show then" }).click()]);

    const banner = page.getByRole("complementary", { name: "Past view" });
    await expect(banner.textContent()).resolves.toContain("Showing version 5 of 15");
    expect((await points(page, "killed")).map((p) => p.source)).toEqual(["Ukrainian authorities"]);
    expect(await page.locator('svg[data-category="childrenKilled"]').count()).toBe(0);
    expect(await page.locator("#timeline li.event").count()).toBe(5);
    const then = await api(`/incidents/${KRAMATORSK}?asOf=${between}`);
    expect(then.version).toBe(5);
    await expect(page.locator("#statements-h").textContent()).resolves.toBe(
      `Statements (${then.statements.count})`,
    );
    await shot(page, "dashboard-past-view");

    // A version link steps to the next version: the governor's figures appear.
    await Promise.all([
      page.waitForURL(/version=6/),
      banner.getByRole("link", { name: "version 6 →" }).click(),
    ]);
    expect((await points(page, "killed")).map((p) => p.source)).toEqual([
      "Ukrainian authorities",
      "Pavlo Kyrylenko",
    ]);
    await page.getByRole("link", { name: "Back to the current view" }).click();
    expect(await page.locator(".past-banner").count()).toBe(0);
    await page.close();
  });

  it("can be used from the keyboard, with a visible focus", async () => {
    const page = await open(`/view/${KRAMATORSK}`);
    await page.keyboard.press("Tab");
    const skip = page.locator(":focus");
    await expect(skip.textContent()).resolves.toBe("Skip to content");
    const outline = await skip.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe("none");
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("main");
    // Tabbing on reaches the moment field's button, and every link or button on the way shows its focus.
    const visited: string[] = [];
    for (let i = 0; i < 60 && visited[visited.length - 1] !== "Show then"; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const el = document.activeElement;
        return {
          text: el.textContent?.trim() ?? "",
          tag: el.tagName,
          outline: getComputedStyle(el).outlineStyle,
        };
      });
      if (focused.tag === "A" || focused.tag === "BUTTON")
        expect(focused.outline, focused.text).not.toBe("none");
      visited.push(focused.text);
    }
    expect(visited).toContain("Show then");
    await page.close();
  });

  it("prints hostile text as text: no script runs, no element is injected", async () => {
    const page = await open(`/view/${HOSTILE}`);
    await expect(page.locator("h1").textContent()).resolves.toBe(`Probe ${SCRIPT_QUOTE}`);
    await expect(page.locator('[data-statement="xss-quote"] blockquote').textContent()).resolves.toBe(
      `${SCRIPT_QUOTE} ${IMG_QUOTE}`,
    );
    const probe = await page.evaluate(() => ({
      pwned: window.__pwned,
      scripts: document.scripts.length,
      images: document.images.length,
      handlers: [...document.querySelectorAll("*")].filter((el) =>
        [...el.attributes].some((a) => a.name.startsWith("on")),
      ).length,
    }));
    expect(probe).toEqual({ pwned: undefined, scripts: 0, images: 0, handlers: 0 });
    await shot(page, "dashboard-escaping");
    const list = await open("/");
    await expect(list.locator(`[data-incident="${HOSTILE}"] h2`).textContent()).resolves.toBe(
      `Probe ${SCRIPT_QUOTE}`,
    );
    expect(await list.evaluate(() => window.__pwned)).toBeUndefined();
    await Promise.all([page.close(), list.close()]);
  });

  it("leads from the list's exports to the codebook, whose sections each have a link that lands", async () => {
    const page = await open("/");
    const refused: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.getByRole("link", { name: "codebook", exact: true }).click();
    await page.waitForURL(/\/codebook$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(/^Codebook/);
    // The stylesheet applies (the page's CSP allows it): the tables scroll inside their own box.
    expect(
      await page
        .locator(".codebook table")
        .first()
        .evaluate((t) => getComputedStyle(t).overflowX),
    ).toBe("auto");
    const sections = page.getByRole("navigation", { name: "Contents" });
    await sections.getByRole("link", { name: "Grades", exact: true }).click();
    await page.waitForURL(/\/codebook#grades$/);
    const top = await page.locator("#grades").evaluate((h) => h.getBoundingClientRect().top);
    expect(Math.abs(top)).toBeLessThan(5);
    expect(await page.locator("#grades").textContent()).toBe("Grades");
    expect(refused).toEqual([]);
    await page.close();
  });

  it("fits a phone screen without sideways scrolling", async () => {
    const phone = await browser.newContext({
      viewport: { width: 375, height: 740 },
      deviceScaleFactor: 1,
      isMobile: true,
    });
    try {
      for (const path of ["/", `/view/${KRAMATORSK}`, "/codebook"]) {
        const page = await phone.newPage();
        await page.goto(`${archive.url}${path}`);
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        expect(overflow, path).toBeLessThanOrEqual(0);
        await shot(page, `dashboard-phone-${path === "/" ? "list" : path.split("/")[1]}`);
      }
    } finally {
      await phone.close();
    }
  });
});
