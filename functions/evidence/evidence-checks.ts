import {
  capturedSha256,
  capturesOf,
  checkCapturesHeld,
  checkEvidenceNamed,
  evidenceNamed,
} from "../../events/evidence.js";
import type { Envelope } from "../../events/schemas.js";
import type { StoredEvent } from "../../events/stored-event.js";
import type { IncidentState } from "../../events/summary.js";
import { ValidationError } from "../errors.js";
import type { ReadFrom } from "../store/commit-reader.js";
import type { BlobStore } from "./blob-store.js";

export interface EvidenceChecks {
  /** Before an append: its captures' bytes held, its evidence lists naming this incident's captures. */
  before(incidentId: string, envelopes: readonly Envelope[], batched: boolean): Promise<void>;
}

/**
 * The append's evidence rules against the blob store and the incident's stored captures. Both
 * only grow (bytes are kept, captures are never removed from a chain), so what holds before
 * the append still holds when it is stored.
 */
export function evidenceChecks(
  store: BlobStore,
  events: { events(incidentId: string, from?: ReadFrom): AsyncGenerator<StoredEvent> },
  views?: { getState(incidentId: string): Promise<IncidentState | null> },
): EvidenceChecks {
  /**
   * Which of `wanted` are captured in the incident. The stored view first (it may lag, but what
   * it holds is stored): its newest captures, then the events after it; the events it covers are
   * read only when it has older captures than it keeps and one is still missing.
   */
  const capturedAmong = async (incidentId: string, wanted: ReadonlySet<string>): Promise<Set<string>> => {
    const captured = new Set<string>();
    const scan = async (from: number, to: number) => {
      for await (const event of events.events(incidentId, { after: from })) {
        if (event.version > to || captured.size === wanted.size) return;
        const sha256 = capturedSha256(event);
        if (sha256 && wanted.has(sha256)) captured.add(sha256);
      }
    };
    const state = await views?.getState(incidentId);
    const kept = state?.evidence?.latest ?? [];
    for (const row of kept) if (wanted.has(row.sha256)) captured.add(row.sha256);
    const seen = state?.version ?? 0;
    if (captured.size < wanted.size) await scan(seen, Number.MAX_SAFE_INTEGER);
    if (captured.size < wanted.size && (state?.evidence?.count ?? 0) > kept.length) await scan(0, seen);
    return captured;
  };
  return {
    async before(incidentId, envelopes, batched) {
      const captures = capturesOf(envelopes, batched);
      const held = await Promise.all(captures.map((c) => store.head(c.sha256)));
      const errors = checkCapturesHeld(captures, held);
      const named = evidenceNamed(envelopes, batched);
      if (named.length > 0) {
        const captured = await capturedAmong(incidentId, new Set(named.map((n) => n.sha256)));
        errors.push(...checkEvidenceNamed(named, captured));
      }
      if (errors.length > 0) {
        throw new ValidationError(
          `${errors
            .slice(0, 3)
            .map((e) => `${e.path}: ${e.message}`)
            .join("; ")}; nothing was stored`,
          errors,
        );
      }
      // Restricted before the capture is stored, and only ever tightened: a crash or a refusal
      // after this leaves the bytes stricter, never looser, than the chain says. Nothing is
      // marked public (bytes are public unless marked), so no crash leaves a public capture's
      // bytes unreadable.
      for (const c of captures) if (c.access === "restricted") await store.setAccess(c.sha256, "restricted");
    },
  };
}
