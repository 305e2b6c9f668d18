import type { Context } from "hono";
import { html } from "hono/html";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DASHBOARD_CSP } from "./dashboard-styles.js";

/** Every reading page goes out through here: a doctype, and headers that forbid script and foreign assets. */
export async function renderPage(
  c: Context,
  status: ContentfulStatusCode,
  page: JSX.Element,
  cache = "no-cache",
): Promise<Response> {
  return renderPageWithin(c, status, [() => page], Number.POSITIVE_INFINITY, cache);
}

/**
 * The first of `drafts`, each drawing less than the one before, that renders within `maxBytes`
 * (else the last): a page's budgets count rows and points, and text a writer chose can still
 * make those rows long (each `&` is five bytes as HTML).
 */
export async function renderPageWithin(
  c: Context,
  status: ContentfulStatusCode,
  drafts: readonly (() => JSX.Element)[],
  maxBytes: number,
  cache = "no-cache",
): Promise<Response> {
  c.header("Content-Security-Policy", DASHBOARD_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", cache);
  let text = "";
  for (const draft of drafts) {
    text = String(await html`<!doctype html>${draft()}`);
    if (Buffer.byteLength(text) <= maxBytes) break;
  }
  return c.html(text, status);
}
