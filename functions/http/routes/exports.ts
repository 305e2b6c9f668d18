import { Hono } from "hono";
import { type Exporter, textStream } from "../../export/exports.js";
import type { LogReader } from "../../export/log-reader.js";
import { exportTreeSize } from "../../export/query-rules.js";
import { acceptQuery } from "../params.js";

export interface ExportRoutesDeps {
  exporter: Exporter;
  logReader: LogReader;
}

/**
 * The exports, streamed. `X-Tree-Size` says which tree they were cut at, so a client that did
 * not ask for one can cite it and fetch the same bytes again with `treeSize=`.
 */
export function exportRoutes({ exporter, logReader }: ExportRoutesDeps) {
  const app = new Hono();
  app.get("/export/events.ndjson", acceptQuery("treeSize"), async (c) => {
    const size = await exportTreeSize(c, logReader);
    return c.body(textStream(exporter.eventsNdjson(size)), 200, {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="events-${size}.ndjson"`,
      "X-Tree-Size": String(size),
    });
  });
  app.get("/export/incidents.csv", acceptQuery("treeSize"), async (c) => {
    const size = await exportTreeSize(c, logReader);
    return c.body(textStream(exporter.incidentsCsv(size)), 200, {
      "Content-Type": "text/csv; charset=utf-8; header=present",
      "Content-Disposition": `attachment; filename="incidents-${size}.csv"`,
      "X-Tree-Size": String(size),
    });
  });
  return app;
}
