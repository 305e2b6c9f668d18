import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { ExportBuilds, StoredExports } from "./export-files.js";
import { Exporter, type SummaryReader } from "./exports.js";
import { FeedReader } from "./feed-reader.js";
import type { LogReader } from "./log-reader.js";
import { ReleaseStore } from "./release-store.js";

export interface ExportParts {
  feed: FeedReader;
  exporter: Exporter;
  releases: ReleaseStore;
  logReader: LogReader;
  /** Where the exports stream from when not from this app (see ExportRoutesDeps.streamedAt). */
  streamedAt?: string;
  /** Exports built once into object storage, served from there when built (AWS). */
  stored?: StoredExports;
  /** Starts building a release's exports into that storage (AWS). */
  builds?: ExportBuilds;
}

/** The feed, the exports and the releases, over the events table and the log table. */
export function createExportParts(options: {
  db: DynamoDBClient;
  eventsTable: string;
  logTable: string;
  log: LogReader;
  reader: SummaryReader;
  streamedAt?: string;
  stored?: StoredExports;
  builds?: ExportBuilds;
}): ExportParts {
  const feed = new FeedReader(options.db, options.eventsTable, options.log);
  return {
    feed,
    exporter: new Exporter(feed, options.log, options.reader),
    releases: new ReleaseStore(options.db, options.logTable),
    logReader: options.log,
    ...(options.streamedAt ? { streamedAt: options.streamedAt } : {}),
    ...(options.stored ? { stored: options.stored } : {}),
    ...(options.builds ? { builds: options.builds } : {}),
  };
}
