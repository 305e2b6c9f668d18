import { MalformedProofFileError } from "./errors.js";
import { HASH_SIZE, type Hash } from "./merkle.js";
import { parseNote, strictBase64 } from "./note.js";

/** c2sp.org/tlog-proof@v1: an offline proof that an entry is in a signed (and cosigned) checkpoint. */
export const PROOF_HEADER = "c2sp.org/tlog-proof@v1";

export interface ProofFile {
  /** Opaque, unauthenticated extra data (never trusted by itself). */
  extra?: Uint8Array;
  index: number;
  inclusion: Hash[];
  /** The signed checkpoint, verbatim: body, blank line, signature lines. */
  checkpoint: string;
}

export function formatProofFile(proof: ProofFile): string {
  if (!Number.isSafeInteger(proof.index) || proof.index < 0)
    throw new RangeError("index is a non-negative integer");
  const lines = [PROOF_HEADER];
  if (proof.extra) lines.push(`extra ${Buffer.from(proof.extra).toString("base64")}`);
  lines.push(`index ${proof.index}`);
  for (const h of proof.inclusion) {
    if (h.length !== HASH_SIZE) throw new RangeError("inclusion hashes are 32 bytes");
    lines.push(Buffer.from(h).toString("base64"));
  }
  return `${lines.join("\n")}\n\n${proof.checkpoint}`;
}

export function parseProofFile(text: string): ProofFile {
  const blank = text.indexOf("\n\n");
  if (blank < 0)
    throw new MalformedProofFileError("a proof is header lines, a blank line, then the checkpoint");
  const lines = text.slice(0, blank).split("\n");
  const checkpoint = text.slice(blank + 2);
  if (lines.shift() !== PROOF_HEADER) throw new MalformedProofFileError(`the first line is ${PROOF_HEADER}`);
  let extra: Uint8Array | undefined;
  if (lines[0]?.startsWith("extra ")) {
    const bytes = strictBase64((lines.shift() as string).slice("extra ".length));
    if (!bytes) throw new MalformedProofFileError("the extra line is base64");
    extra = bytes;
  }
  const indexMatch = /^index (0|[1-9][0-9]*)$/.exec(lines.shift() ?? "");
  if (!indexMatch || !Number.isSafeInteger(Number(indexMatch[1]))) {
    throw new MalformedProofFileError("the index line is `index <decimal>`");
  }
  const inclusion = lines.map((line) => {
    const h = strictBase64(line);
    if (h?.length !== HASH_SIZE) throw new MalformedProofFileError("each proof line is base64 of 32 bytes");
    return h;
  });
  try {
    parseNote(checkpoint);
  } catch (e) {
    throw new MalformedProofFileError(`the checkpoint is not a signed note: ${(e as Error).message}`);
  }
  return { ...(extra ? { extra } : {}), index: Number(indexMatch[1]), inclusion, checkpoint };
}
