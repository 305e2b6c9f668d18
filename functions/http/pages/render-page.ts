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
  c.header("Content-Security-Policy", DASHBOARD_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", cache);
  return c.html(await html`<!doctype html>${page}`, status);
}
