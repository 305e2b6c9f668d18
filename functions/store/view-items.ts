import { gunzipSync, gzipSync } from "node:zlib";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { SpillLog, SpillPiece } from "../../events/spill.js";
import { compactState, expandState } from "../../events/state-pack.js";
import { summarize } from "../../events/summarize.js";
import { type IncidentState, withoutUnsaved } from "../../events/summary.js";
import type { EditorialRowsFolded } from "../editorial/editorial-index.js";
import { LIST_PARTITION } from "./table-design.js";

/**
 * The items of the views table as the projector and the rebuild write them, built from a fold
 * state: plain data and the domain only, apart from the store that reads and writes them
 * (ViewStore), so a rebuild can pack a view where it folds it and batch the writes.
 */

/** The fold state is snapshotted at every multiple of this version, for past views. */
export const SNAPSHOT_EVERY = 100;

/**
 * A stored fold state, or null when there is none or it is of an earlier shape (unbounded, whose
 * `statements` was a list, or from before the spilled lists): the view is derived, so it is
 * simply folded again.
 */
export function unpack(packed: Uint8Array | undefined): IncidentState | null {
  if (!packed) return null;
  const state = expandState(JSON.parse(gunzipSync(packed).toString("utf8")));
  return Array.isArray(state.statements) || !state.denialAssessments ? null : state;
}

/** A stored state never carries unsaved pieces: they are written as their own items first. */
function pack(state: IncidentState): Uint8Array {
  return gzipSync(JSON.stringify(compactState(withoutUnsaved(state))), { level: 1 });
}

export const snapshotKey = (incidentId: string, version: number) => `${incidentId}#snapshot#${version}`;

/**
 * A fold state as a snapshot stores it: packed at once, so the draft it came from may go on,
 * with the pieces it names that may not be written yet (they go first).
 */
export interface PackedSnapshot {
  incidentId: string;
  version: number;
  state: Uint8Array;
  pieces: readonly SpillPiece[];
}

export function packSnapshot(state: IncidentState): PackedSnapshot {
  const { incidentId, version } = state;
  return { incidentId, version, state: pack(state), pieces: [...(state.unsaved ?? [])] };
}

/**
 * A view as its item, built at once (summary JSON, packed state), with the pieces it names that
 * may not be written yet: what a rebuild hands to its batched writes.
 */
export interface PackedView {
  incidentId: string;
  version: number;
  item: Record<string, AttributeValue>;
  pieces: readonly SpillPiece[];
  /** The links and attributions its fold set, for the editorial index (functions/editorial). */
  editorial?: EditorialRowsFolded;
}

export function packView(state: IncidentState, editorial: EditorialRowsFolded): PackedView {
  const { incidentId, version } = state;
  return {
    incidentId,
    version,
    item: viewItem(state),
    pieces: [...(state.unsaved ?? [])],
    ...(editorial.links.length + editorial.attributions.length > 0
      ? { editorial: { links: [...editorial.links], attributions: [...editorial.attributions] } }
      : {}),
  };
}

export function snapshotItem(snapshot: PackedSnapshot): Record<string, AttributeValue> {
  return {
    incidentId: { S: snapshotKey(snapshot.incidentId, snapshot.version) },
    version: { N: String(snapshot.version) },
    itemType: { S: "snapshot" },
    state: { B: snapshot.state },
  };
}

export const pieceKey = (incidentId: string, log: SpillLog, index: number) =>
  `${incidentId}#spill#${log}#${index}`;

export function pieceItem(incidentId: string, piece: SpillPiece): Record<string, AttributeValue> {
  return {
    incidentId: { S: pieceKey(incidentId, piece.log, piece.index) },
    itemType: { S: "spill" },
    rows: { S: JSON.stringify(piece.rows) },
  };
}

/**
 * The view item. Once a list spilled into pieces, the item holds no summary (the full one needs
 * the pieces): a reader assembles it from the state and the pieces, and the listing does the
 * same for it, as for any view without a summary.
 */
export function viewItem(state: IncidentState): Record<string, AttributeValue> {
  const spilled = state.spilled !== null;
  const opened = state.opened;
  const item: Record<string, AttributeValue> = {
    incidentId: { S: state.incidentId },
    version: { N: String(state.version) },
    // The fold state is bounded (see events/summary.ts): packed, it stays far below the 400 KB
    // item limit however long the incident. The summary beside it stays plain JSON for anyone
    // reading the table.
    state: { B: pack(state) },
    listPk: { S: LIST_PARTITION },
    activity: { S: `${state.lastRecordedAt ?? ""}#${state.incidentId}` },
    contested: { BOOL: state.denials.length + (state.spilled?.liveDenials ?? 0) > 0 },
  };
  if (!spilled) item.summary = { S: JSON.stringify(summarize(state)) };
  if (opened?.kind) item.kind = { S: opened.kind };
  if (opened?.location?.country) item.country = { S: opened.location.country };
  return item;
}

/** A view's summary as stored: its JSON text, or null where the view stores none (spilled). */
export interface StoredSummary {
  version: number;
  json: string | null;
}

export function storedSummary(item: Record<string, AttributeValue> | undefined): StoredSummary | null {
  if (item?.version?.N === undefined) return null;
  return { version: Number(item.version.N), json: item.summary?.S ?? null };
}
