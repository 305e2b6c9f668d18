import type { Envelope } from "../../events/schemas.js";
import { incidentTag, parseServerEventId } from "../../events/server-ids.js";
import {
  type IdOutcome,
  partlyStoredError,
  type Replay,
  replayOf,
  storedOutcome,
  throwConflicts,
} from "./append-answers.js";
import { type Claim, type ClaimTable, isAbandoned } from "./claims.js";
import type { CommitMemo, CommitReader } from "./commit-reader.js";

/**
 * The client-eventId half of an append: before its commit, a writer claims each client id for
 * the slot it is about to write (claims.ts says why that makes an id stored at most once), or
 * finds the id already stored — a replay — or taken.
 */
export class ClaimProtocol {
  constructor(
    private readonly claims: ClaimTable,
    private readonly reader: CommitReader,
    private readonly now: () => string,
  ) {}

  /** Reserves every client id of the append for `slot`, or says why it cannot. */
  async secure(
    incidentId: string,
    slot: number,
    envelopes: readonly Envelope[],
    fingerprints: Map<string, string>,
  ): Promise<"held" | "stale" | Replay> {
    const memo: CommitMemo = new Map();
    const ids = [...fingerprints.keys()];
    // A batch that is refused must not leave its other ids reserved: look before claiming (the
    // claims of the whole batch in one read).
    if (ids.length > 1) {
      const claims = await this.claims.getMany(ids.filter((id) => !parseServerEventId(id)));
      const seen = await Promise.all(
        ids.map((id) => this.lookup(id, incidentId, fingerprints, memo, claims)),
      );
      throwConflicts(incidentId, envelopes, ids, seen);
      if (seen.some((o) => o.kind === "stored")) {
        const replay = replayOf(incidentId, envelopes, ids, seen);
        if (replay) return replay;
        throw partlyStoredError(envelopes, ids, seen);
      }
    }
    const outcomes = await Promise.all(
      ids.map((id) =>
        parseServerEventId(id)
          ? this.lookup(id, incidentId, fingerprints, memo)
          : this.claimOne(id, incidentId, slot, fingerprints, memo),
      ),
    );
    throwConflicts(incidentId, envelopes, ids, outcomes);
    if (outcomes.some((o) => o.kind === "stale")) return "stale";
    if (outcomes.every((o) => o.kind === "held")) return "held";
    const replay = replayOf(incidentId, envelopes, ids, outcomes);
    if (replay) return replay;
    throw partlyStoredError(envelopes, ids, outcomes);
  }

  private async claimOne(
    eventId: string,
    incidentId: string,
    slot: number,
    fingerprints: Map<string, string>,
    memo: CommitMemo,
  ): Promise<IdOutcome> {
    const claims = this.claims;
    for (let round = 0; round < 20; round++) {
      if (await claims.tryClaim(claims.hold({ eventId, incidentId, slot }))) return { kind: "held" };
      const claim = await claims.get(eventId);
      if (!claim) continue;
      const here = { incidentId, slot };
      // A retry of the append this claim was made for: re-take it, so its deadline starts again.
      if (claim.incidentId === incidentId && claim.slot === slot) {
        if (await claims.move(claim, here)) return { kind: "held" };
        continue;
      }
      const commit = await this.reader.commitAt(claim.incidentId, claim.slot, memo);
      const event = commit?.events.find((e) => e.eventId === eventId);
      if (commit && event) return storedOutcome(incidentId, event, commit, fingerprints);
      if (!commit && !isAbandoned(claim, this.now())) {
        return claim.incidentId === incidentId ? { kind: "stale" } : { kind: "reserved", claim };
      }
      // The slot the claim names was filled without this event, or its holder is gone for good.
      if (await claims.move(claim, here)) return { kind: "held" };
    }
    return { kind: "stale" };
  }

  /** What is known of an id without reserving anything (`known`: its claim, already read). */
  async lookup(
    eventId: string,
    incidentId: string,
    fingerprints: Map<string, string>,
    memo: CommitMemo,
    known?: ReadonlyMap<string, Claim | null>,
  ): Promise<IdOutcome> {
    const made = parseServerEventId(eventId);
    if (made) {
      // An id the archive made: it can only be a repeat of the very event it names.
      if (made.tag !== incidentTag(incidentId)) return { kind: "foreign", madeElsewhere: true };
      const commit = await this.reader.commitHolding(incidentId, made.version);
      const event = commit?.events.find((e) => e.version === made.version);
      if (commit && event?.eventId === eventId) return storedOutcome(incidentId, event, commit, fingerprints);
      return { kind: "foreign", madeElsewhere: false };
    }
    const claim = known?.has(eventId) ? (known.get(eventId) ?? null) : await this.claims.get(eventId);
    if (!claim) return { kind: "held" };
    const commit = await this.reader.commitAt(claim.incidentId, claim.slot, memo);
    const event = commit?.events.find((e) => e.eventId === eventId);
    if (commit && event) return storedOutcome(incidentId, event, commit, fingerprints);
    if (!commit && claim.incidentId !== incidentId && !isAbandoned(claim, this.now())) {
      return { kind: "reserved", claim };
    }
    return { kind: "held" };
  }
}
