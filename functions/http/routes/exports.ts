import { Hono } from "hono";
import { type Exporter, textStream } from "../../export/exports.js";
import type { LogReader } from "../../export/log-reader.js";
import { exportTreeSize } from "../../export/query-rules.js";
import type { Logger } from "../../log.js";
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
}

const EXPORTS = {
  "events.ndjson": {
    type: "application/x-ndjson; charset=utf-8",
    body: (exporter: Exporter, size: number) => exporter.eventsNdjson(size),
    file: (size: number) => `events-${size}.ndjson`,
  },
  "incidents.csv": {
    type: "text/csv; charset=utf-8; header=present",
    body: (exporter: Exporter, size: number) => exporter.incidentsCsv(size),
    file: (size: number) => `incidents-${size}.csv`,
  },
} as const;

/**
 * The exports, streamed. `X-Tree-Size` says which tree they were cut at, so a client that did
 * not ask for one can cite it and fetch the same bytes again with `treeSize=`.
 */
export function exportRoutes({ exporter, logReader, streamedAt }: ExportRoutesDeps) {
  const app = new Hono();
  for (const [name, spec] of Object.entries(EXPORTS)) {
    app.get(`/export/${name}`, acceptQuery("treeSize"), async (c) => {
      const size = await exportTreeSize(c, logReader);
      if (streamedAt) {
        // The target names its tree size, so it is the same bytes however late it is followed.
        c.header("X-Tree-Size", String(size));
        return c.redirect(`${streamedAt.replace(/\/+$/, "")}/export/${name}?treeSize=${size}`, 307);
      }
      return c.body(textStream(spec.body(exporter, size)), 200, {
        "Content-Type": spec.type,
        "Content-Disposition": `attachment; filename="${spec.file(size)}"`,
        "X-Tree-Size": String(size),
      });
    });
  }
  return app;
}

/** The exports alone, with the API's problem+json errors: what the exports function serves. */
export function exportsApp(deps: Omit<ExportRoutesDeps, "streamedAt"> & { log: Logger }): Hono {
  const app = new Hono();
  app.onError(createErrorHandler(deps.log));
  app.notFound(notFoundHandler);
  app.route("/", exportRoutes(deps));
  return app;
}
