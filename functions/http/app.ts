import { Hono, type MiddlewareHandler } from "hono";
import { compress } from "hono/compress";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { Logger } from "../logger.js";
import { answerHeaders } from "./answer-headers.js";
import { loggedPath } from "./logged-path.js";
import { createErrorHandler, notFoundHandler, problemResponse } from "./problem.js";

export interface AppDeps {
  log: Logger;
  /**
   * The route groups this app serves, mounted at / in order: the API's (api-routes.ts), the
   * data routes (data-routes.ts), the pages. Each Lambda mounts only its own groups, so that
   * its bundle carries no other group's code; the local server mounts them all.
   */
  routes: Hono[];
}

/** The HTTP surface around some route groups: the same app runs in Lambda and locally. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.use(answerHeaders());
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    // One structured line per request: what a log search needs, never the body or the token.
    deps.log.info("request", {
      method: c.req.method,
      path: loggedPath(c.req.path),
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
  for (const routes of deps.routes) app.route("/", routes);
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
