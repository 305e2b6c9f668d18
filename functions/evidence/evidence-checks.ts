import {
  capturedSha256,
  capturesOf,
  checkCapturesHeld,
  checkEvidenceNamed,
  evidenceNamed,
} from "../../events/evidence.js";
import type { Envelope } from "../../events/schemas.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { ValidationError } from "../errors.js";
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
  events: { events(incidentId: string): AsyncGenerator<StoredEvent> },
): EvidenceChecks {
  return {
    async before(incidentId, envelopes, batched) {
      const captures = capturesOf(envelopes, batched);
      const held = await Promise.all(captures.map((c) => store.head(c.sha256)));
      const errors = checkCapturesHeld(captures, held);
      const named = evidenceNamed(envelopes, batched);
      if (named.length > 0) {
        const wanted = new Set(named.map((n) => n.sha256));
        const captured = new Set<string>();
        // The incident's events in order, until every piece named is found among its captures.
        for await (const event of events.events(incidentId)) {
          const sha256 = capturedSha256(event);
          if (sha256 && wanted.has(sha256)) {
            captured.add(sha256);
            if (captured.size === wanted.size) break;
          }
        }
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
