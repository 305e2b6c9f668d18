import { Hono, type MiddlewareHandler } from "hono";
import { compress } from "hono/compress";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { ExportParts } from "../export/export-parts.js";
import type { IncidentReader } from "../incident-reader.js";
import type { Logger } from "../log.js";
import type { EventStore } from "../store/event-store.js";
import type { ViewStore } from "../store/view-store.js";
import type { Authenticator } from "./auth.js";
import { createErrorHandler, notFoundHandler, problemResponse } from "./problem.js";
import { eventRoutes } from "./routes/events.js";
import { exportRoutes } from "./routes/exports.js";
import { feedRoutes } from "./routes/feed.js";
import { incidentRoutes } from "./routes/incidents.js";
import { type LogRouteDeps, logRoutes } from "./routes/log.js";
import { metaRoutes } from "./routes/meta.js";
import { releaseRoutes } from "./routes/releases.js";

export interface AppDeps {
  events: EventStore;
  views: ViewStore;
  reader: IncidentReader;
  authenticate: Authenticator;
  log: Logger;
  checkStore: () => Promise<void>;
  /** The feed, exports and releases (issue 12). */
  exports?: ExportParts;
  /** The transparency log's read routes (issue 11). */
  transparency?: LogRouteDeps;
  /** The OpenAPI document /openapi.json answers (see MetaRoutesDeps.openApi). */
  openApi: Record<string, unknown>;
  /** Extra routes mounted at / (the dashboard pages and /docs, locally). */
  pages?: Hono;
}

/** The whole HTTP surface, built from its dependencies: the same app runs in Lambda and locally. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    // One structured line per request: what a log search needs, never the body or the token.
    deps.log.info("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });
  app.use(compressText());
  // A path that exists with other methods: 405 naming them, for every route, present and future.
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) => {
        c.header("Allow", methods.join(", "));
        return problemResponse(c, {
          type: "/docs#problem-method-not-allowed",
          title: "Method not allowed",
          status: 405,
          detail: `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(", ")}`,
          instance: c.req.path,
        });
      },
    }),
  );
  app.notFound(notFoundHandler);
  app.route("/", metaRoutes(deps));
  app.route("/", eventRoutes(deps));
  app.route("/", incidentRoutes(deps));
  if (deps.transparency) app.route("/", logRoutes(deps.transparency));
  if (deps.exports) {
    app.route("/", feedRoutes(deps.exports));
    app.route("/", exportRoutes(deps.exports));
    app.route("/", releaseRoutes({ ...deps.exports, authenticate: deps.authenticate }));
  }
  if (deps.pages) app.route("/", deps.pages);
  return app;
}

/** Answers built whole in memory; exports (CSV, NDJSON) stream and are never buffered. */
const WHOLE = /^(?:application\/(?:problem\+)?json|text\/(?:html|plain)|image\/svg\+xml)\b/i;
const ACCEPTS_COMPRESSION = /\b(?:gzip|deflate)\b/i;

/**
 * Text answers (pages, JSON, problem documents, exports and other streams too) are gzip'd or
 * deflated when the client accepts it: the incident page shrinks about fivefold. Answers built
 * whole get their length first, so that Hono's 1 KiB threshold applies (an 11-byte /health
 * answer gzip'd is 31 bytes and costs more CPU than it saves). Hono's middleware turns a strong
 * ETag weak when it compresses; ours is not a hash of the bytes but the incident's version (the
 * contract's `ETag: "N"`, which `If-Match` and `If-None-Match` compare), the same in every
 * encoding, so it is kept as it was.
 */
function compressText(): MiddlewareHandler {
  const gzip = compress();
  return async (c, next) => {
    if (!ACCEPTS_COMPRESSION.test(c.req.header("accept-encoding") ?? "")) return next();
    let etag: string | null = null;
    await gzip(c, async () => {
      await next();
      etag = c.res.headers.get("ETag");
      const type = c.res.headers.get("Content-Type") ?? "";
      if (c.res.body && !c.res.headers.has("Content-Length") && WHOLE.test(type)) {
        const bytes = await c.res.arrayBuffer();
        const whole = new Response(bytes, c.res);
        whole.headers.set("Content-Length", String(bytes.byteLength));
        c.res = whole;
      }
    });
    if (etag) c.res.headers.set("ETag", etag);
  };
}
