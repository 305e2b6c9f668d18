import { Hono } from "hono";

type Json = Record<string, unknown>;

export interface MetaRoutesDeps {
  /** Resolves when the store answers; rejects otherwise. */
  checkStore: () => Promise<void>;
  /**
   * The OpenAPI document, built by `openApiDocument()` (functions/http/openapi.ts): at start
   * locally, at build time for the API Lambda (infra/bundling.ts), so the Lambda carries
   * neither the builder nor zod's JSON-Schema code.
   */
  openApi: Json;
}

/** /health and /openapi.json (/docs, a page, is served with the dashboard pages). */
export function metaRoutes({ checkStore, openApi }: MetaRoutesDeps) {
  const app = new Hono();
  app.get("/health", async (c) => {
    try {
      await checkStore();
      return c.json({ ok: true });
    } catch (error) {
      return c.json({ ok: false, detail: `the store does not answer: ${(error as Error).message}` }, 503);
    }
  });
  app.get("/openapi.json", (c) => c.json(openApi));
  return app;
}
