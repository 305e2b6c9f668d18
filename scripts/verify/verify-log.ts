import type { StoredEvent } from "../../events/stored-event.js";
import type { Checkpoint } from "../../events/transparency/checkpoint.js";
import { parseLeaf } from "../../events/transparency/leaf.js";
import { equalHashes, hashLeaf } from "../../events/transparency/merkle.js";
import type { VerifierKey } from "../../events/transparency/note.js";
import type { Policy } from "../../events/transparency/policy.js";
import { decodeEntryBundle, TILE_WIDTH, tileWidth } from "../../events/transparency/tiles.js";
import {
  checkAgainstRemembered,
  checkSignedCheckpoint,
  IncidentCheck,
  LeafIndex,
  RootBuilder,
  VerificationError,
} from "./checks.js";
import type { LogSource } from "./source.js";
import type { VerifierState } from "./state.js";

export interface VerifyLogOptions {
  source: LogSource;
  logKey: VerifierKey;
  policy?: Policy;
  /** The last checkpoint this user accepted, if any. */
  state?: VerifierState | null;
  /** Progress lines for long logs (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** The verifier's clock, for the new state's `verifiedAt`. */
  now?: () => Date;
}

export interface VerifyLogResult {
  checkpoint: Checkpoint;
  incidents: number;
  events: number;
  /** What to remember for the next run. */
  state: VerifierState;
}

const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

/**
 * Everything `npm run verify -- --url` checks, in order, throwing a VerificationError naming the
 * first thing that does not hold: the checkpoint's signature (and witness quorum), its
 * consistency with the remembered one, every leaf read from the entry bundles recomputing the
 * checkpoint's root, and every incident's served events chaining and matching their leaves.
 */
export async function verifyLog(options: VerifyLogOptions): Promise<VerifyLogResult> {
  const { source, logKey, policy, state } = options;
  const progress = options.progress ?? (() => {});
  const note = await source.checkpoint();
  const cp = checkSignedCheckpoint(note, logKey, policy);
  progress(`checkpoint ${cp.origin} size ${cp.size} root ${b64(cp.root)}: signature verified`);

  if (state) {
    if (state.origin !== cp.origin) {
      throw new VerificationError(`the state file is for log ${state.origin}, not ${cp.origin}`);
    }
    const remembered = { size: state.size, root: new Uint8Array(Buffer.from(state.root, "base64")) };
    const needsProof = state.size > 0 && state.size < cp.size;
    const proof = needsProof ? await source.consistency(state.size, cp.size) : null;
    checkAgainstRemembered(remembered, cp, proof);
    progress(`consistent with the remembered checkpoint of size ${state.size}`);
  }

  const leaves = new LeafIndex();
  const root = new RootBuilder();
  const bundles = Math.ceil(cp.size / TILE_WIDTH);
  for (let n = 0; n < bundles; n++) {
    const width = tileWidth(0, n, cp.size);
    let entries: Uint8Array[];
    try {
      entries = decodeEntryBundle(await source.entries({ index: n, width }));
    } catch (e) {
      throw new VerificationError(`entry bundle ${n}: ${(e as Error).message}`);
    }
    // A full bundle may be served where the checkpoint only needs its first `width` entries.
    if (entries.length < width)
      throw new VerificationError(`entry bundle ${n} holds ${entries.length} of ${width}`);
    for (const [i, bytes] of entries.slice(0, width).entries()) {
      const index = n * TILE_WIDTH + i;
      try {
        leaves.add(index, parseLeaf(bytes));
      } catch (e) {
        if (e instanceof VerificationError) throw e;
        throw new VerificationError(`leaf ${index}: ${(e as Error).message}`);
      }
      root.push(hashLeaf(bytes));
    }
    if ((n + 1) % 64 === 0) progress(`read ${root.count} of ${cp.size} leaves`);
  }
  const recomputed = root.root();
  if (!equalHashes(recomputed, cp.root)) {
    throw new VerificationError(
      `the ${cp.size} leaves recompute root ${b64(recomputed)}, not the checkpoint's ${b64(cp.root)}`,
    );
  }
  progress(`all ${cp.size} leaves recompute the checkpoint's root`);

  let events = 0;
  let done = 0;
  for (const [incidentId, logged] of leaves.byIncident) {
    const check = new IncidentCheck(incidentId, logged);
    let after = 0;
    for (;;) {
      let page: { items: StoredEvent[]; next: number | null };
      try {
        page = await source.events(incidentId, after);
      } catch (e) {
        throw new VerificationError(
          `incident ${incidentId}: its events cannot be read (${(e as Error).message})`,
        );
      }
      for (const event of page.items) check.event(event);
      events += page.items.length;
      if (page.next === null || page.items.length === 0) break;
      after = page.next;
    }
    check.end();
    if (++done % 500 === 0) progress(`checked ${done} of ${leaves.byIncident.size} incidents`);
  }
  progress(
    `${leaves.byIncident.size} incidents, ${events} events: every chain recomputes and matches the log`,
  );

  const now = options.now ?? (() => new Date());
  return {
    checkpoint: cp,
    incidents: leaves.byIncident.size,
    events,
    state: {
      origin: cp.origin,
      size: cp.size,
      root: b64(cp.root),
      checkpoint: note,
      verifiedAt: now().toISOString(),
    },
  };
}
