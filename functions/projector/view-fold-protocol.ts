import type { StoredEvent } from "../../events/stored-event.js";
import type { Item } from "../store/commit-item.js";
import type { PackedSnapshot, PackedView } from "../store/view-items.js";
import type { ScanOutcome } from "./view-rebuild.js";

/** What the rebuild hands its fold thread at start (structured-clone data only). */
export interface FoldWorkerData {
  segments: number;
}

/**
 * A commit item as the fold thread gets it: its key and its events' JSON texts, all the fold
 * reads of it (a structured clone of the SDK's attribute maps costs the sending thread ~4×).
 */
export type FoldItem = [incidentId: string, version: string, events: string[]];

export function toFoldItem(item: Item): FoldItem {
  return [item.incidentId?.S ?? "", item.version?.N ?? "", (item.events?.L ?? []).map((e) => e.S ?? "")];
}

export function fromFoldItem([incidentId, version, events]: FoldItem): Item {
  return {
    incidentId: { S: incidentId },
    version: { N: version },
    events: { L: events.map((S) => ({ S })) },
  };
}

/** Rebuild → fold thread. Each is answered by a `done` with its id. */
export type ToFold =
  | { type: "page"; id: number; segment: number; items: FoldItem[] }
  | { type: "end"; id: number; segment: number }
  | { type: "outcome"; id: number }
  | { type: "answer"; id: number; value?: StoredEvent[] | StoredEvent | null; error?: string };

/** A read a fold step asks of the event store (history-fold.ts's EventLookup). */
export type FoldRead =
  | { method: "eventsBetween"; incidentId: string; after: number; last: number }
  | { method: "findEvent"; incidentId: string; eventId: string };

/** Fold thread → rebuild, in the order the folds hand them over. */
export type FromFold =
  | { type: "ready" }
  | { type: "snapshot"; snapshot: PackedSnapshot }
  | { type: "view"; view: PackedView }
  | { type: "read"; id: number; read: FoldRead }
  | { type: "done"; id: number; outcome?: ScanOutcome; error?: string };
