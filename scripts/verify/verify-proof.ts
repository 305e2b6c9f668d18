import type { StoredEvent } from "../../events/stored-event.js";
import type { Checkpoint } from "../../events/transparency/checkpoint.js";
import { leafText } from "../../events/transparency/leaf.js";
import type { Hash } from "../../events/transparency/merkle.js";
import type { VerifierKey } from "../../events/transparency/note.js";
import type { Policy } from "../../events/transparency/policy.js";
import { parseProofFile } from "../../events/transparency/proof-file.js";
import { checkEventProof, checkSignedCheckpoint, VerificationError } from "./checks.js";

/**
 * Offline: one event against a proof, either a `c2sp.org/tlog-proof@v1` file or the JSON of
 * GET /incidents/{id}/events/{eventId}/proof. Needs only the log's key (and a policy for witnesses).
 */
export function verifyEventProof(input: {
  proofText: string;
  event: StoredEvent;
  logKey: VerifierKey;
  policy?: Policy;
}): { checkpoint: Checkpoint; index: number } {
  let index: number;
  let inclusion: Hash[];
  let note: string;
  let leaf: Uint8Array | undefined;
  try {
    ({ index, inclusion, note, leaf } = readProof(input.proofText));
  } catch (e) {
    throw new VerificationError(`proof: ${(e as Error).message}`);
  }
  const checkpoint = checkSignedCheckpoint(note, input.logKey, input.policy);
  checkEventProof({ event: input.event, index, inclusion, checkpoint });
  // The leaf a proof states is unauthenticated, and the check above uses the event's own; a
  // proof that states another is of another event, or altered, and is not passed as this one's.
  if (leaf !== undefined && !Buffer.from(leaf).equals(Buffer.from(leafText(input.event)))) {
    throw new VerificationError(
      `the proof states leaf ${JSON.stringify(Buffer.from(leaf).toString("utf8").slice(0, 300))}, not this event's ${new TextDecoder().decode(leafText(input.event))}`,
    );
  }
  return { checkpoint, index };
}

function readProof(text: string): { index: number; inclusion: Hash[]; note: string; leaf?: Uint8Array } {
  if (text.trimStart().startsWith("{")) {
    const json = JSON.parse(text) as {
      index?: unknown;
      inclusion?: unknown;
      checkpoint?: unknown;
      leaf?: unknown;
    };
    if (
      !Number.isSafeInteger(json.index) ||
      !Array.isArray(json.inclusion) ||
      !json.inclusion.every((h) => typeof h === "string") ||
      typeof json.checkpoint !== "string"
    ) {
      throw new Error("the proof JSON has no index, inclusion or checkpoint");
    }
    return {
      index: json.index as number,
      inclusion: (json.inclusion as string[]).map((h) => new Uint8Array(Buffer.from(h, "base64"))),
      note: json.checkpoint,
      ...(typeof json.leaf === "string" ? { leaf: new Uint8Array(Buffer.from(json.leaf, "utf8")) } : {}),
    };
  }
  const file = parseProofFile(text);
  return {
    index: file.index,
    inclusion: file.inclusion,
    note: file.checkpoint,
    ...(file.extra ? { leaf: file.extra } : {}),
  };
}
