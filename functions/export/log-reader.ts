import type { LeafRecord } from "../log/log-store.js";

export type { LeafRecord };

/**
 * What the feed and the exports need of the transparency log (functions/log/log-store.ts
 * implements it): the latest signed checkpoint and the leaves in index order. Declared here so
 * that the exports depend on these two reads only.
 */
export interface LatestCheckpoint {
  size: number;
  /** base64 */
  root: string;
  /** The signed note, in full. */
  text: string;
}

export interface LogReader {
  latestCheckpoint(): Promise<LatestCheckpoint | null>;
  /** Leaves [from, to), in index order. */
  leaves(from: number, to: number): AsyncIterable<LeafRecord>;
}
