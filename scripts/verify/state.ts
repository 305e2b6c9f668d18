import { readFile, rename, writeFile } from "node:fs/promises";

/** What a user keeps between runs: the last checkpoint this verifier accepted. */
export interface VerifierState {
  origin: string;
  size: number;
  /** base64 */
  root: string;
  /** The signed checkpoint note, verbatim: evidence if the log later contradicts it. */
  checkpoint: string;
  verifiedAt: string;
  /**
   * Each incident's last version in that checkpoint and its chain hash: where the next run
   * picks up with --incremental.
   */
  heads?: Record<string, { version: number; hash: string }>;
}

export async function readState(file: string): Promise<VerifierState | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  // A file made empty beforehand (touch, mktemp) is a first run, not a broken state.
  if (text.trim() === "") return null;
  let state: VerifierState;
  try {
    state = JSON.parse(text) as VerifierState;
  } catch (e) {
    throw new Error(`${file} is not a verifier state file: ${(e as Error).message}`);
  }
  if (
    typeof state.origin !== "string" ||
    !Number.isSafeInteger(state.size) ||
    typeof state.root !== "string"
  ) {
    throw new Error(`${file} is not a verifier state file`);
  }
  return state;
}

/** Written beside and renamed over, so a crash never leaves half a state file. */
export async function writeState(file: string, state: VerifierState): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}
