import { type ChainStart, ChainVerifier } from "../../events/stored-event.js";
import { type Commit, type Item, itemToCommit } from "./commit-item.js";

/**
 * The commit a stream record carries in its NewImage (StreamViewType NEW_IMAGE), or the local
 * stream hands on: the stored item itself, parsed by the event store's own code. Null when there
 * is none or it does not decode as a commit of this incident; the reader then reads the store,
 * as it always could.
 */
export function carriedCommit(image: Item | undefined, incidentId: string): Commit | null {
  if (!image) return null;
  let commit = decoded.get(image);
  if (commit === undefined) {
    try {
      commit = itemToCommit(image);
    } catch {
      commit = null;
    }
    decoded.set(image, commit);
  }
  return commit?.incidentId === incidentId ? commit : null;
}

/**
 * Locally one stored item reaches both the projector and the log sequencer: it is decoded once
 * and its chain checked once (the check's cost is a canonical JSON and a SHA-256 an event).
 * Keyed by the objects themselves, so nothing outlives the commits the local stream still holds.
 */
const decoded = new WeakMap<Item, Commit | null>();
/** Commits whose events were checked to chain on from the hash they map to. */
const chainedFrom = new WeakMap<Commit, string>();

/**
 * The commits a batch of records carries, per incident, in delivery order. An incident any of
 * whose records carries nothing readable is read from the store: folding or sequencing the
 * others would leave that record's commit behind while the record counts as handled.
 */
export class CarriedCommits {
  private readonly byIncident = new Map<string, Commit[] | null>();

  /** A record of this incident, with the item it carries (none: it only names the incident). */
  add(incidentId: string, image?: Item): void {
    const commit = carriedCommit(image, incidentId);
    const sofar = this.byIncident.get(incidentId);
    if (!commit) this.byIncident.set(incidentId, null);
    else if (sofar === undefined) this.byIncident.set(incidentId, [commit]);
    else sofar?.push(commit);
  }

  get incidents(): string[] {
    return [...this.byIncident.keys()];
  }

  /** This incident's carried commits; none when the store must be read. */
  of(incidentId: string): Commit[] {
    return this.byIncident.get(incidentId) ?? [];
  }

  /** Every incident's carried commits, leaving out those to be read from the store. */
  usable(): Map<string, Commit[]> {
    const out = new Map<string, Commit[]>();
    for (const [id, commits] of this.byIncident) if (commits) out.set(id, commits);
    return out;
  }
}

/**
 * The commits of `carried` (in delivery order) that continue `head` exactly, or null when they
 * do not: a gap, a commit out of order, a broken link or hash, or nothing new. Commits at or
 * below what is already covered (duplicated deliveries) are passed over. Every event is checked
 * as an outside reader checks the chain — version after version, `prevHash` the previous
 * `hash`, the hash recomputed — so a record is trusted no further than the store would be;
 * anything else sends the caller (projector, log sequencer) back to the store's read.
 */
export function commitsContinuing(
  incidentId: string,
  head: ChainStart,
  carried: readonly Commit[],
): Commit[] | null {
  const continuing: Commit[] = [];
  let from: ChainStart = head;
  for (const commit of carried) {
    if (commit.lastVersion <= from.version) continue;
    const size = commit.lastVersion - commit.version + 1;
    if (commit.version !== from.version + 1 || commit.events.length !== size) return null;
    if (chainedFrom.get(commit) !== from.hash) {
      const chain = new ChainVerifier(from);
      for (const event of commit.events) {
        if (event.incidentId !== incidentId || !chain.push(event)) return null;
      }
      chainedFrom.set(commit, from.hash);
    }
    continuing.push(commit);
    from = { version: commit.lastVersion, hash: (commit.events.at(-1) as Commit["events"][number]).hash };
  }
  return continuing.length > 0 ? continuing : null;
}
