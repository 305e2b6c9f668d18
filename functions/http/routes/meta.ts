import { Hono } from "hono";
import { FAVICON_SVG } from "../pages/favicon.js";
import { acceptQuery } from "../params.js";

type Json = Record<string, unknown>;

export interface MetaRoutesDeps {
  /** Resolves when the store answers; rejects otherwise. */
  checkStore: () => Promise<void>;
}

/** Crawlers may read the pages; the API, its pages of JSON and the exports are for programs. */
const ROBOTS_TXT = `User-agent: *
Disallow: /incidents
Disallow: /export/
Disallow: /feed
Disallow: /log/
Allow: /
`;

/**
 * /health, and what browsers and crawlers ask every site for (/docs, a page, is
 * served with the dashboard pages: functions/http/routes/site.tsx).
 */
export function metaRoutes({ checkStore }: MetaRoutesDeps) {
  const app = new Hono();

  app.get("/health", acceptQuery(), async (c) => {
    try {
      await checkStore();
      return c.json({ ok: true });
    } catch (error) {
      return c.json({ ok: false, detail: `the store does not answer: ${(error as Error).message}` }, 503);
    }
  });
  app.get("/robots.txt", acceptQuery(), (c) => c.text(ROBOTS_TXT));
  app.get("/favicon.ico", acceptQuery(), (c) =>
    c.body(FAVICON_SVG, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" }),
  );
  return app;
}

/**
 * /openapi.json: the document `openApiDocument()` builds (functions/http/openapi.ts), at start
 * locally, at build time for the Lambdas (infra/bundling.ts), so that no Lambda carries the
 * builder or zod's JSON-Schema code. Served by the data Lambda: the API Lambda carries no copy.
 */
export function openApiRoute(openApi: Json) {
  const app = new Hono();
  const docText = JSON.stringify(openApi);
  app.get("/openapi.json", acceptQuery(), (c) =>
    c.body(docText, 200, { "Content-Type": "application/json" }),
  );
  return app;
}
