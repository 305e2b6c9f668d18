import type { ReleaseStore } from "./release-store.js";

export interface LeafIndexLookup {
  /** The log index of one version of an incident, or null while it is not in the log. */
  indexOf(incidentId: string, version: number): Promise<number | null>;
}

/** The largest version of an incident with a leaf below `treeSize` (0: none), by binary search. */
export async function lastVersionWithin(
  log: LeafIndexLookup,
  incidentId: string,
  upTo: number,
  treeSize: number,
): Promise<number> {
  // Versions enter the log in order, so "index < treeSize" holds for a prefix of versions.
  let low = 0;
  let high = upTo;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const index = await log.indexOf(incidentId, mid);
    if (index !== null && index < treeSize) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * The line to cite an incident by: the latest release that holds it, the version it holds, and
 * a link to the page as of that version. One read of the newest release and about
 * log2(versions) index lookups, never a read of the log.
 */
export async function incidentCitation(
  deps: { releases: ReleaseStore; log: LeafIndexLookup },
  incident: { incidentId: string; title: string | null; version: number },
  origin: string,
): Promise<string | null> {
  const latest = await deps.releases.latest();
  if (!latest) return null;
  const version = await lastVersionWithin(deps.log, incident.incidentId, incident.version, latest.treeSize);
  if (version === 0) return null;
  const url = `${origin}/view/${incident.incidentId}?version=${version}`;
  return `${incident.title ?? incident.incidentId} (incident ${incident.incidentId}, version ${version}), incident-ledger release ${latest.name}, tree size ${latest.treeSize}, root ${latest.root}, ${url}`;
}
