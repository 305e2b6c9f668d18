import type { Exporter } from "./exports.js";

/**
 * The export files: their media types, download names and bodies, in one place, so that the
 * local route and an object built into the exports bucket (functions/export/export-upload.ts)
 * carry the same headers and the same bytes for a tree size.
 */
export const EXPORT_FILES = {
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
  "ucdp-ged.csv": {
    type: "text/csv; charset=utf-8; header=present",
    body: (exporter: Exporter, size: number) => exporter.ucdpGedCsv(size),
    file: (size: number) => `ucdp-ged-${size}.csv`,
  },
  "acled.csv": {
    type: "text/csv; charset=utf-8; header=present",
    body: (exporter: Exporter, size: number) => exporter.acledCsv(size),
    file: (size: number) => `acled-${size}.csv`,
  },
} as const;

export type ExportName = keyof typeof EXPORT_FILES;
export const EXPORT_NAMES = Object.keys(EXPORT_FILES) as ExportName[];

export const isExportName = (name: unknown): name is ExportName =>
  typeof name === "string" && Object.hasOwn(EXPORT_FILES, name);

export const contentDisposition = (name: ExportName, size: number) =>
  `attachment; filename="${EXPORT_FILES[name].file(size)}"`;

/** Where the exports bucket holds every built export; the IAM grants are scoped to it. */
export const EXPORT_OBJECT_PREFIX = "exports/";

/** An export at a tree size is immutable, so the tree size names its object. */
export const exportObjectKey = (size: number, name: ExportName) => `${EXPORT_OBJECT_PREFIX}${size}/${name}`;

/** Exports built once into object storage (in AWS: the exports bucket). */
export interface StoredExports {
  /** A short-lived URL that GETs the built export (any size, `Range`), or null when none is built. */
  urlOf(size: number, name: ExportName): Promise<string | null>;
}

/** Starts building a tree size's exports elsewhere (in AWS: an asynchronous invoke of the builder). */
export interface ExportBuilds {
  start(size: number): Promise<void>;
}
