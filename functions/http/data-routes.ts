import { Hono } from "hono";
import { type ProofBundleDeps, proofBundleRoutes } from "../evidence/proof-bundle.js";
import type { ExportParts } from "../export/export-parts.js";
import type { Logger } from "../logger.js";
import type { Authenticator } from "./auth.js";
import { exportRoutes } from "./routes/exports.js";
import { feedRoutes } from "./routes/feed.js";
import { type LogRouteDeps, logRoutes } from "./routes/log.js";
import { timestampRoutes } from "./routes/log-timestamps.js";
import { openApiRoute } from "./routes/meta.js";
import { releaseRoutes } from "./routes/releases.js";

export interface DataRoutesDeps {
  /** The feed, exports and releases (issue 12). */
  exports: ExportParts;
  /** The transparency log's read routes (issue 11). */
  transparency: LogRouteDeps;
  authenticate: Authenticator;
  /** The OpenAPI document /openapi.json answers (see `openApiRoute`). */
  openApi: Record<string, unknown>;
  /** Where a failed look-up of a built export, or a failed start of a build, is reported. */
  log?: Logger;
  /** The archive's public origin, for release links and citations. */
  publicUrl: () => string;
  /** The proof bundle's evidence, time-stamps and readers (functions/evidence/proof-bundle.ts). */
  bundle?: Pick<ProofBundleDeps, "blobs" | "timestampCovering" | "readers" | "audit" | "publicUrl">;
}

/**
 * The data Lambda's routes: the transparency log (/log/..., an event's proof), /feed,
 * /export/..., /releases (its POST is a writer's) and /openapi.json.
 */
export function dataRoutes(deps: DataRoutesDeps): Hono {
  const app = new Hono();
  app.route("/", openApiRoute(deps.openApi));
  app.route("/", logRoutes(deps.transparency));
  app.route("/", timestampRoutes({ logStore: deps.transparency.logStore }));
  app.route(
    "/",
    proofBundleRoutes({ ...deps.transparency, ...deps.bundle, ...(deps.log ? { log: deps.log } : {}) }),
  );
  app.route("/", feedRoutes(deps.exports));
  const log = deps.log ? { log: deps.log } : {};
  app.route("/", exportRoutes({ ...deps.exports, ...log }));
  app.route(
    "/",
    releaseRoutes({ ...deps.exports, authenticate: deps.authenticate, publicUrl: deps.publicUrl, ...log }),
  );
  return app;
}
