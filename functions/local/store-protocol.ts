import type { WitnessConfig } from "../log/witness-client.js";
import type { Level } from "../log.js";
import type { Item } from "../store/commit-item.js";
import type { TableNames } from "../store/table-design.js";

/** What the request thread hands the store thread at start (structured-clone data only). */
export interface StoreWorkerData {
  dynamoPort: number;
  host: string;
  dataDir?: string;
  tables: TableNames & { log: string };
  logOrigin: string;
  logKey?: string;
  witnesses: readonly WitnessConfig[];
  sequenceLog: boolean;
  logLevel: Level;
}

/** Request thread → store thread. A commit is fire-and-forget; the rest are answered by id. */
export type ToStore =
  | { type: "commit"; item: Item }
  | { type: "idle"; id: number }
  | { type: "logIdle"; id: number }
  | { type: "logNotify"; id: number; incidentId: string }
  | { type: "logPass"; id: number; incidentIds?: string[] }
  | { type: "close"; id: number };

/** Store thread → request thread. */
export type FromStore =
  | { type: "ready"; dynamoEndpoint: string; createdTables: string[]; caughtUp: number }
  /** Every commit of this incident told so far (`through` of them) is projected. */
  | { type: "settled"; incidentId: string; through: number }
  | { type: "reply"; id: number; value?: unknown; error?: string }
  | { type: "log"; level: Level; message: string; fields?: Record<string, unknown> };
