import { MAX_BATCH } from "../../events/schemas.js";
import type { AppendResult } from "./append-answers.js";
import type { AppendRequest } from "./append-path.js";

/** One append waiting in its incident's lane, and the promise that answers it. */
export class PendingAppend {
  /** Client ids with the fingerprint of their content. */
  readonly fingerprints = new Map<string, string>();
  private answered = false;

  constructor(
    readonly request: AppendRequest,
    fingerprint: (eventId: string, index: number) => string,
    private readonly onAnswer: { resolve: (r: AppendResult) => void; reject: (e: unknown) => void },
  ) {
    request.envelopes.forEach((e, i) => {
      if (e.eventId) this.fingerprints.set(e.eventId, fingerprint(e.eventId, i));
    });
  }

  get settled(): boolean {
    return this.answered;
  }

  resolve(result: AppendResult): void {
    this.answered = true;
    this.onAnswer.resolve(result);
  }

  reject(error: unknown): void {
    this.answered = true;
    this.onAnswer.reject(error);
  }
}

/**
 * Takes the next group off the front of a lane: the first waiting append, then those after it
 * while the group holds at most MAX_BATCH events in all (readers rely on a commit holding at
 * most that many). The group stops, in arrival order, at:
 *
 * - an append with If-Match: it always goes alone. Its promise ("only if the incident is at N")
 *   is then checked exactly as before group commit, and no other append's fate hangs on it.
 * - an append sharing a client eventId with one already in the group (two clients posting the
 *   same event at once): both would claim the id for the same slot and both would hold it, so
 *   the second waits for the next group, where it finds the first stored and replays it.
 */
export function takeGroup(lane: PendingAppend[]): PendingAppend[] {
  const first = lane.shift();
  if (!first) return [];
  const group = [first];
  if (first.request.expectedVersion !== undefined) return group;
  let events = first.request.envelopes.length;
  const ids = new Set(first.fingerprints.keys());
  for (let next = lane[0]; next; next = lane[0]) {
    if (next.request.expectedVersion !== undefined) break;
    if (events + next.request.envelopes.length > MAX_BATCH) break;
    if ([...next.fingerprints.keys()].some((id) => ids.has(id))) break;
    group.push(lane.shift() as PendingAppend);
    events += next.request.envelopes.length;
    for (const id of next.fingerprints.keys()) ids.add(id);
  }
  return group;
}
