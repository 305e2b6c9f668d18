import type { WitnessConfig } from "../log/witness-client.js";
import type { Level } from "../log.js";
import type { Item } from "../store/commit-item.js";
import type { TableNames } from "../store/table-design.js";

/** What the request thread hands the feed thread at start (structured-clone data only). */
export interface FeedWorkerData {
  dynamoEndpoint: string;
  /** Where the log's signing key is kept (made by the request thread first), if not in logKey. */
  dataDir?: string;
  tables: TableNames & { log: string };
  logOrigin: string;
  logKey?: string;
  witnesses: readonly WitnessConfig[];
  /** tsa (issue 21): the RFC 3161 authority for tokens over checkpoints. */
  tsa?: { url: string; timeoutMs?: number; minIntervalMs?: number };
  sequenceLog: boolean;
  logLevel: Level;
}

/** Request thread → feed thread. A commit is fire-and-forget; the rest are answered by id. */
export type ToFeed =
  | { type: "commit"; item: Item }
  /** A read waits for this incident's projection: no more batching window for it. */
  | { type: "hurry"; incidentId: string }
  | { type: "idle"; id: number }
  | { type: "logIdle"; id: number }
  | { type: "logNotify"; id: number; incidentId: string }
  | { type: "logPass"; id: number; incidentIds?: string[] }
  | { type: "logWitnessed"; id: number }
  | { type: "close"; id: number };

/** A view the pass saved, as its summary's JSON text: the request thread serves it from memory. */
export interface SavedView {
  version: number;
  json: string;
}

/** Feed thread → request thread. */
export type FromFeed =
  | { type: "ready"; createdTables: string[]; caughtUp: number }
  /**
   * The first `through` commits of this incident told since it was last idle are projected;
   * `idle`: all of them, and the count starts again from 0.
   */
  | { type: "settled"; incidentId: string; through: number; idle: boolean; view?: SavedView }
  | { type: "reply"; id: number; value?: unknown; error?: string }
  | { type: "log"; level: Level; message: string; fields?: Record<string, unknown> };
