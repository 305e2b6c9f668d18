import { Hono } from "hono";
import { openApiDocument } from "../openapi.js";
import { DocsPage } from "../pages/docs-page.js";

export interface MetaRoutesDeps {
  /** Resolves when the store answers; rejects otherwise. */
  checkStore: () => Promise<void>;
}

/** /health, /openapi.json and /docs. */
export function metaRoutes({ checkStore }: MetaRoutesDeps) {
  const app = new Hono();
  const doc = openApiDocument();

  app.get("/health", async (c) => {
    try {
      await checkStore();
      return c.json({ ok: true });
    } catch (error) {
      return c.json({ ok: false, detail: `the store does not answer: ${(error as Error).message}` }, 503);
    }
  });
  app.get("/openapi.json", (c) => c.json(doc));
  app.get("/docs", (c) => c.html(<DocsPage doc={doc} />));
  return app;
}
