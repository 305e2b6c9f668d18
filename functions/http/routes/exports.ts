import { Hono } from "hono";
import {
  contentDisposition,
  EXPORT_FILES,
  type ExportName,
  type StoredExports,
} from "../../export/export-files.js";
import { type Exporter, textStream } from "../../export/exports.js";
import type { LogReader } from "../../export/log-reader.js";
import { exportTreeSize } from "../../export/query-rules.js";
import type { Logger } from "../../logger.js";
import { acceptQuery } from "../params.js";
import { createErrorHandler, notFoundHandler } from "../problem.js";

export interface ExportRoutesDeps {
  exporter: Exporter;
  logReader: LogReader;
  /**
   * Where the exports are streamed from, when not from here (in AWS: the exports function's
   * URL, since the API's Lambda answers through API Gateway, which buffers a response of at
   * most 6 MB within 30 s). Then these routes check the query, pin the tree size and redirect;
   * without it (locally) they stream the export themselves.
   */
  streamedAt?: string;
  /**
   * Exports already built for a tree size (in AWS: the exports bucket). When the pinned tree
   * size's object exists, the routes redirect to a presigned GET of it: any size, `Range`,
   * served by S3 instead of re-running the export.
   */
  stored?: StoredExports;
  /** Where a failed look-up in `stored` is reported (it then falls back to `streamedAt`). */
  log?: Logger;
}

/**
 * The exports, streamed. `X-Tree-Size` says which tree they were cut at, so a client that did
 * not ask for one can cite it and fetch the same bytes again with `treeSize=`.
 */
export function exportRoutes({ exporter, logReader, streamedAt, stored, log }: ExportRoutesDeps) {
  const app = new Hono();
  for (const [name, spec] of Object.entries(EXPORT_FILES)) {
    const file = name as ExportName;
    app.get(`/export/${name}`, acceptQuery("treeSize"), async (c) => {
      const size = await exportTreeSize(c, logReader);
      // Both targets name the tree size, so they are the same bytes however late they are
      // followed (the presigned one within its hour; then the route signs a fresh one).
      const built = stored ? await builtExport(stored, size, file, log) : null;
      if (built || streamedAt) {
        c.header("X-Tree-Size", String(size));
        return c.redirect(
          built ?? `${(streamedAt as string).replace(/\/+$/, "")}/export/${name}?treeSize=${size}`,
          307,
        );
      }
      return c.body(textStream(spec.body(exporter, size)), 200, {
        "Content-Type": spec.type,
        "Content-Disposition": contentDisposition(file, size),
        "X-Tree-Size": String(size),
      });
    });
  }
  return app;
}

/** The built export's URL; a failing look-up is no reason to refuse a download that can still stream. */
async function builtExport(
  stored: StoredExports,
  size: number,
  name: ExportName,
  log: Logger | undefined,
): Promise<string | null> {
  try {
    return await stored.urlOf(size, name);
  } catch (error) {
    log?.warn("could not look up a built export; streaming it instead", {
      treeSize: size,
      name,
      error: (error as Error).message,
    });
    return null;
  }
}

/** The exports alone, with the API's problem+json errors: what the exports function serves. */
export function exportsApp(deps: Omit<ExportRoutesDeps, "streamedAt" | "stored"> & { log: Logger }): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.notFound(notFoundHandler);
  app.route("/", exportRoutes(deps));
  return app;
}
