import { Hono } from "hono";
import { openApiDocument } from "../openapi.js";
import { DocsPage } from "../pages/docs-page.js";
import { FAVICON_SVG } from "../pages/favicon.js";
import { acceptQuery } from "../params.js";

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

/** /health, /openapi.json, /docs, and what browsers and crawlers ask every site for. */
export function metaRoutes({ checkStore }: MetaRoutesDeps) {
  const app = new Hono();
  // Built once: the document is a pure function of the schemas.
  const doc = openApiDocument();
  const docText = JSON.stringify(doc);

  app.get("/health", acceptQuery(), async (c) => {
    try {
      await checkStore();
      return c.json({ ok: true });
    } catch (error) {
      return c.json({ ok: false, detail: `the store does not answer: ${(error as Error).message}` }, 503);
    }
  });
  app.get("/openapi.json", acceptQuery(), (c) =>
    c.body(docText, 200, { "Content-Type": "application/json" }),
  );
  app.get("/docs", acceptQuery(), (c) => c.html(<DocsPage doc={doc} />));
  app.get("/robots.txt", acceptQuery(), (c) => c.text(ROBOTS_TXT));
  app.get("/favicon.ico", acceptQuery(), (c) =>
    c.body(FAVICON_SVG, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" }),
  );
  return app;
}
