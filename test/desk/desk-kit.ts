import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import { type LocalOptions, type LocalServer, startLocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { TOKEN } from "../support/archive.js";

export { launchChromium } from "../support/chromium.js";

/**
 * The desk's browser tests: one archive and one Chromium per file, people signing in with
 * their tokens, forms filled field by field as a person would, axe on every form page.
 */

export const SHOTS = "/tmp/desk-shots";

export const WRITER = { name: "Reporter Rita", token: "rita-token-0123456789", roles: ["writer"] as const };

export async function startDeskArchive(options: Partial<LocalOptions> = {}): Promise<LocalServer> {
  return startLocalServer({
    port: 0,
    dynamoPort: 0,
    token: TOKEN,
    writer: "test-writer",
    users: [{ ...WRITER, roles: [...WRITER.roles] }],
    log: silentLogger,
    ...options,
  });
}

/** A person's browser, with JavaScript off (every form must work without it) unless asked for. */
export async function newPerson(
  browser: Browser,
  options: { javaScript?: boolean } = {},
): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 1100, height: 900 },
    locale: "en-GB",
    javaScriptEnabled: options.javaScript ?? false,
  });
}

/** Signs in through the sign-in page, by keyboard: the token typed, Enter pressed. */
export async function signIn(page: Page, base: string, token: string, next = "/desk"): Promise<void> {
  await page.goto(`${base}/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Your token").fill(token);
  await page.getByLabel("Your token").press("Enter");
  await page.waitForURL(`${base}${next}`);
}

/** Signs in over plain HTTP, as a form without a browser would: the session cookie, as a `cookie` header's value. */
export async function signInOverHttp(base: string, token: string): Promise<string> {
  const answer = await fetch(`${base}/sign-in`, {
    method: "POST",
    headers: { origin: base, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token, next: "/desk" }),
    redirect: "manual",
  });
  expect(answer.status, "signed in").toBe(303);
  const cookie = answer.headers.getSetCookie().find((c) => c.startsWith("ledger_session="));
  return (cookie ?? "").split(";")[0] as string;
}

/** The anti-forgery token a desk page at `path` carries for the session in `cookie`. */
export async function formTokenOf(base: string, cookie: string, path = "/desk/new"): Promise<string> {
  const html = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
  return /name="formToken" value="([^"]+)"/.exec(html)?.[1] ?? "";
}

/** Fills fields by name: text and selects by value, radios by the value to check. */
export async function fill(page: Page, fields: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(fields)) {
    const control = page.locator(`[name="${name}"]`).first();
    const tag = await control.evaluate((el) => `${el.tagName}:${el.getAttribute("type") ?? ""}`);
    if (tag.startsWith("SELECT")) await control.selectOption(value);
    else if (tag === "INPUT:radio") await page.locator(`[name="${name}"][value="${value}"]`).check();
    else {
      await control.fill(value);
      // A suggestion list left open would take the next click: a person closes it first.
      if (await control.getAttribute("list")) await control.press("Escape");
    }
  }
}

/** Submits the form with its main button and waits for the answer page. */
export async function submit(page: Page, button: string | RegExp): Promise<void> {
  await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST"),
    page.getByRole("button", { name: button, exact: true }).click(),
  ]);
  await page.waitForLoadState("load");
}

/** Follows a link and waits for the page it leads to. */
export async function follow(page: Page, name: string): Promise<void> {
  const link = page.getByRole("link", { name, exact: true });
  const href = await link.getAttribute("href");
  await link.click();
  await page.waitForURL((url) => url.pathname === new URL(href ?? "", page.url()).pathname);
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// biome-ignore lint/suspicious/noExplicitAny: the browser global axe adds, checked by the assertions.
declare const axe: any;

/**
 * axe on a page as the person sees it: the same cookies, in a context that lets axe run (the
 * pages' own CSP forbids every script, as it should). `act` brings the page into the state to
 * check (e.g. a form sent with mistakes). One page a browser serves every check: axe is put in
 * each document it loads, and a renderer kept between checks compiles axe's script once rather
 * than at every check.
 */
export async function expectAccessible(
  browser: Browser,
  person: BrowserContext,
  url: string,
  act?: (page: Page) => Promise<void>,
): Promise<void> {
  const page = await axePage(browser);
  // A fresh document: a URL that differed from the last check's only by its fragment would
  // otherwise leave that check's page, and what its `act` did, in place.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await page.context().addCookies(await person.cookies());
  await page.goto(url);
  if (act) await act(page);
  const result = await page.evaluate(async () => {
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map(
      (v: { id: string; help: string; nodes: { target: string[] }[] }) =>
        `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
    );
  });
  expect(result, `axe on ${page.url()}`).toEqual([]);
}

const axePages = new WeakMap<Browser, Promise<Page>>();

function axePage(browser: Browser): Promise<Page> {
  let page = axePages.get(browser);
  if (!page) {
    page = (async () => {
      const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1100, height: 900 } });
      await context.addInitScript({ content: AXE });
      return context.newPage();
    })();
    axePages.set(browser, page);
  }
  return page;
}

// biome-ignore lint/suspicious/noExplicitAny: a browser global used inside page.evaluate.
declare const document: any;
