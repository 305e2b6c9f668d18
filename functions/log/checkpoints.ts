import { formatCheckpoint, parseCheckpoint } from "../../events/transparency/checkpoint.js";
import {
  consistencyProof,
  EMPTY_ROOT,
  equalHashes,
  type Hash,
  treeRoot,
  verifyConsistency,
} from "../../events/transparency/merkle.js";
import { signNote, verifyNote } from "../../events/transparency/note.js";
import type { Logger } from "../logger.js";
import type { LogStore, StoredCheckpoint } from "./log-store.js";
import type { LogTiles } from "./log-tiles.js";
import type { LogSigner } from "./signer.js";
import { type WitnessClient, WitnessCosigner } from "./witness-client.js";

/**
 * The log refuses to sign: the stored tree does not extend the checkpoint it signed last (a
 * leaf or tile below that size was changed), or another root is already signed at this size.
 */
export class LogInconsistencyError extends Error {
  override name = "LogInconsistencyError";
}

export interface CheckpointPublisherOptions {
  store: LogStore;
  tiles: LogTiles;
  signer: LogSigner;
  log: Logger;
  witnesses?: WitnessClient;
  /** Told of each checkpoint once it is stored (the TSA client: timestamp-keeper.ts); never awaited. */
  onStored?: (checkpoint: StoredCheckpoint) => void;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/**
 * Signs checkpoints of the log as it grows. A checkpoint is signed only after checking, with
 * a consistency proof read from the stored tiles, that the tree extends the last checkpoint
 * signed: so two checkpoints never contradict each other, even if a table was edited.
 *
 * One signature at a time, latest wins: sizes asked for while one is being signed are folded
 * into one next signature over the largest (so a sequencer that reports progress after every
 * run never queues signatures behind it). Witnesses are asked after the checkpoint is stored,
 * outside of this (see WitnessCosigner): a slow witness never holds a signature back.
 */
export class CheckpointPublisher {
  private wanted = 0;
  private waiting: { size: number; resolve: (c: StoredCheckpoint) => void; reject: (e: unknown) => void }[] =
    [];
  private running: Promise<void> | null = null;
  /**
   * The last checkpoint this publisher stored or read, its signature and body checked: the next
   * one is proven against it without reading it back. Another sequencer (AWS) may have signed a
   * larger one meanwhile; both are of the same leaves, and `putCheckpoint` refuses a second root
   * at one size, so the worst case is a checkpoint no larger than the latest — as when two
   * passes read the latest at once.
   */
  private last: { checkpoint: StoredCheckpoint; root: Hash } | null = null;
  private readonly cosigner: WitnessCosigner | undefined;

  constructor(private readonly options: CheckpointPublisherOptions) {
    this.cosigner = options.witnesses
      ? new WitnessCosigner(options.witnesses, options.store, options.tiles, options.log)
      : undefined;
  }

  get origin(): string {
    return this.options.signer.name;
  }

  /** Resolves with a stored checkpoint of at least `size` leaves (the settled size of the log). */
  publish(size: number): Promise<StoredCheckpoint> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ size, resolve, reject });
      if (size > this.wanted) this.wanted = size;
      this.running ??= this.signAll();
    });
  }

  /** Resolves when the witnesses have answered (or timed out) on every checkpoint sent so far. */
  witnessed(): Promise<void> {
    return this.cosigner?.idle() ?? Promise.resolve();
  }

  private async signAll(): Promise<void> {
    while (this.waiting.length > 0) {
      const size = this.wanted;
      const served = this.waiting.filter((w) => w.size <= size);
      this.waiting = this.waiting.filter((w) => w.size > size);
      try {
        const checkpoint = await this.publishNow(size);
        for (const w of served) w.resolve(checkpoint);
      } catch (error) {
        this.last = null;
        for (const w of served) w.reject(error);
      }
    }
    this.running = null;
  }

  private async publishNow(size: number): Promise<StoredCheckpoint> {
    const { store, tiles, signer } = this.options;
    let latest = this.last;
    if (!latest || latest.checkpoint.size > size) {
      const stored = await store.latestCheckpoint();
      latest = stored ? { checkpoint: stored, root: this.ourCheckpointBody(stored).root } : null;
    }
    if (latest && latest.checkpoint.size >= size) {
      this.last = latest;
      return latest.checkpoint;
    }
    const node = tiles.nodeReader(size);
    const root = size === 0 ? EMPTY_ROOT : await treeRoot(size, node);
    let proof: Hash[] = [];
    if (latest) {
      const previous = latest.checkpoint;
      // The empty tree is a prefix of every tree: nothing to prove from size 0.
      proof = previous.size === 0 ? [] : await consistencyProof(previous.size, size, node);
      if (previous.size > 0 && !verifyConsistency(previous.size, size, proof, latest.root, root)) {
        throw new LogInconsistencyError(
          `the stored log of ${size} leaves does not extend the signed checkpoint of ${previous.size}: not signing`,
        );
      }
    }
    const text = await signNote(formatCheckpoint({ origin: signer.name, size, root }), [signer]);
    const stored = await store.putCheckpoint({ size, root: b64(root), text });
    if (stored.root !== b64(root)) {
      throw new LogInconsistencyError(`a different root is already signed at size ${size}`);
    }
    this.last = { checkpoint: stored, root };
    this.options.log.debug("checkpoint signed", { size });
    this.cosigner?.offer(stored);
    this.options.onStored?.(stored);
    return stored;
  }

  /** The body of a stored checkpoint, refused unless it is this log's own (origin, size, root). */
  private ourCheckpointBody(checkpoint: StoredCheckpoint) {
    let text: string;
    try {
      text = verifyNote(checkpoint.text, [this.options.signer.vkey]).text;
    } catch (error) {
      throw new LogInconsistencyError(
        `the stored checkpoint at ${checkpoint.size} is not signed by this log's key: ${(error as Error).message}`,
      );
    }
    const body = parseCheckpoint(text);
    if (body.origin !== this.origin || body.size !== checkpoint.size || b64(body.root) !== checkpoint.root) {
      throw new LogInconsistencyError(`the stored checkpoint at ${checkpoint.size} is not this log's`);
    }
    if (body.size === 0 && !equalHashes(body.root, EMPTY_ROOT))
      throw new LogInconsistencyError("the empty checkpoint has a root other than the empty tree's");
    return body;
  }
}
