import { ownValue, setOwn } from "./own-keys.js";
import type { StoredEvent } from "./stored-event.js";

/**
 * The summary's `victims` block (CONTRACT.md "People"): counts only, never a sealed value. The
 * fold keeps the counts and the live `VictimsLinked` judgements between live entries (bounded:
 * at most MAX_LINKS_KEPT; beyond that a same-person link still stands in the record, but
 * `distinct` counts its two entries apart); `distinct` is worked out at read time by union-find
 * over the pairs whose latest kept judgement is same-person.
 */
export const MAX_LINKS_KEPT = 500;
/** The latest victims lists the state names, so a page can show them with a bounded read. */
export const LISTS_KEPT = 5;

export interface VictimCounts {
  recorded: number;
  byStatus: Record<string, number>;
  bySex: Record<string, number>;
  byAgeGroup: Record<string, number>;
  /** Entries with a (sealed) name. */
  named: number;
}

export interface VictimsState extends VictimCounts {
  /**
   * Live judgements on pairs of entries (`${eventId}#${index}`), oldest first, each with its own
   * event id: the latest on a pair holds. `relation` is absent for same-person (all that states
   * folded before kept).
   */
  links: { a: string; b: string; eventId: string; relation?: "not-same-person" }[];
  /** Links left out of `links` once it was full. */
  linksDropped: number;
  /** The latest live `VictimsRecorded` events, oldest first (at most LISTS_KEPT). */
  lists?: { eventId: string; version: number }[];
}

export interface VictimsSummary extends VictimCounts {
  /** Entries after merging those linked as the same person. */
  distinct: number;
}

export function emptyVictims(): VictimsState {
  return { recorded: 0, byStatus: {}, bySex: {}, byAgeGroup: {}, named: 0, links: [], linksDropped: 0 };
}

function bump(counts: Record<string, number>, key: string | undefined, by: number): void {
  const k = key ?? "unknown";
  const next = (ownValue(counts, k) ?? 0) + by;
  if (next === 0) delete counts[k];
  else setOwn(counts, k, next);
}

/** Adds (by 1) or takes away (by -1, a retraction) one `VictimsRecorded` event's entries. */
export function countVictims(state: VictimsState, event: StoredEvent, by: 1 | -1): void {
  for (const v of event.data.victims as Record<string, unknown>[]) {
    state.recorded += by;
    bump(state.byStatus, v.status as string | undefined, by);
    bump(state.bySex, v.sex as string | undefined, by);
    bump(state.byAgeGroup, v.ageGroup as string | undefined, by);
    if (v.name !== undefined) state.named += by;
  }
  if (by === 1) {
    state.lists = [...(state.lists ?? []), { eventId: event.eventId, version: event.version }].slice(
      -LISTS_KEPT,
    );
  } else state.lists = (state.lists ?? []).filter((l) => l.eventId !== event.eventId);
  if (by === -1)
    state.links = state.links.filter(
      (l) => !l.a.startsWith(`${event.eventId}#`) && !l.b.startsWith(`${event.eventId}#`),
    );
}

/** The two entries as one key, whichever way round a link names them. */
const pairOf = (a: string, b: string) => (a < b ? `${a}\n${b}` : `${b}\n${a}`);

/**
 * Folds a `VictimsLinked` between live entries (the caller leaves out one naming a retracted
 * list). The latest judgement on a pair holds, so a not-same-person parts a pair an earlier link
 * merged, and its retraction merges it again. It is kept only when it parts something: on a pair
 * nothing merges it would change nothing. Once the kept links are full, it still parts its pair,
 * by dropping the pair's earlier links instead of being kept itself.
 */
export function linkVictims(state: VictimsState, event: StoredEvent): void {
  const d = event.data as {
    a: { eventId: string; index: number };
    b: { eventId: string; index: number };
    relation: string;
  };
  const a = `${d.a.eventId}#${d.a.index}`;
  const b = `${d.b.eventId}#${d.b.index}`;
  const pair = pairOf(a, b);
  const full = state.links.length >= MAX_LINKS_KEPT;
  if (d.relation !== "same-person") {
    if (!state.links.some((l) => pairOf(l.a, l.b) === pair)) return;
    if (full) {
      state.links = state.links.filter((l) => pairOf(l.a, l.b) !== pair);
      state.linksDropped += 1;
    } else state.links.push({ a, b, eventId: event.eventId, relation: "not-same-person" });
    return;
  }
  if (full) {
    state.linksDropped += 1;
    return;
  }
  state.links.push({ a, b, eventId: event.eventId });
}

/** A retracted link no longer merges its two entries. */
export function unlinkVictims(state: VictimsState, linkEventId: string): boolean {
  const before = state.links.length;
  state.links = state.links.filter((l) => l.eventId !== linkEventId);
  return state.links.length !== before;
}

/** The block as the summary shows it: `distinct` by union-find over the pairs judged the same person. */
export function summarizeVictims(state: VictimsState | undefined): VictimsSummary {
  const s = state ?? emptyVictims();
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root) as string;
    let node = x;
    while (node !== root) {
      const next = parent.get(node) as string;
      parent.set(node, root);
      node = next;
    }
    return root;
  };
  // The latest kept judgement on each pair holds.
  const latest = new Map<string, VictimsState["links"][number]>();
  for (const link of s.links) latest.set(pairOf(link.a, link.b), link);
  let merges = 0;
  for (const { a, b, relation } of latest.values()) {
    if (relation !== undefined) continue;
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) {
      parent.set(ra, rb);
      merges += 1;
    }
  }
  return {
    recorded: s.recorded,
    distinct: Math.max(0, s.recorded - merges),
    byStatus: { ...s.byStatus },
    bySex: { ...s.bySex },
    byAgeGroup: { ...s.byAgeGroup },
    named: s.named,
  };
}
