import { MalformedCheckpointError } from "./errors.js";
import { HASH_SIZE, type Hash } from "./merkle.js";
import { strictBase64 } from "./note.js";

/** c2sp.org/tlog-checkpoint: origin, tree size, base64 root, optional extension lines. */
export interface Checkpoint {
  origin: string;
  size: number;
  root: Hash;
  extensions: string[];
}

export function formatCheckpoint(cp: {
  origin: string;
  size: number;
  root: Hash;
  extensions?: string[];
}): string {
  if (cp.origin.length === 0 || cp.origin.includes("\n")) throw new MalformedCheckpointError("bad origin");
  if (!Number.isSafeInteger(cp.size) || cp.size < 0) throw new MalformedCheckpointError("bad tree size");
  if (cp.root.length !== HASH_SIZE) throw new MalformedCheckpointError("the root is 32 bytes");
  const extensions = cp.extensions ?? [];
  if (extensions.some((e) => e.length === 0 || e.includes("\n"))) {
    throw new MalformedCheckpointError("extension lines are non-empty single lines");
  }
  const lines = [cp.origin, String(cp.size), Buffer.from(cp.root).toString("base64"), ...extensions];
  return `${lines.join("\n")}\n`;
}

/** Parses a checkpoint body (the note text, not the signatures). */
export function parseCheckpoint(body: string): Checkpoint {
  if (!body.endsWith("\n")) throw new MalformedCheckpointError("a checkpoint body ends with a newline");
  const lines = body.slice(0, -1).split("\n");
  if (lines.length < 3) throw new MalformedCheckpointError("a checkpoint has origin, size and root lines");
  const [origin, sizeLine, rootLine, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin.length === 0) throw new MalformedCheckpointError("the origin line is empty");
  if (!/^(0|[1-9][0-9]*)$/.test(sizeLine) || !Number.isSafeInteger(Number(sizeLine))) {
    throw new MalformedCheckpointError("the tree size is a decimal with no leading zeros");
  }
  const root = strictBase64(rootLine);
  if (!root || root.length !== HASH_SIZE)
    throw new MalformedCheckpointError("the root is base64 of 32 bytes");
  if (extensions.some((e) => e.length === 0))
    throw new MalformedCheckpointError("an extension line is empty");
  return { origin, size: Number(sizeLine), root, extensions };
}
