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
import type { Logger } from "../log.js";
import type { LogStore, StoredCheckpoint } from "./log-store.js";
import type { LogTiles } from "./log-tiles.js";
import type { LogSigner } from "./signer.js";
import type { WitnessClient } from "./witness-client.js";

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
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/**
 * Signs checkpoints of the log as it grows. A checkpoint is signed only after checking, with
 * a consistency proof read from the stored tiles, that the tree extends the last checkpoint
 * signed: so two checkpoints never contradict each other, even if a table was edited.
 */
export class CheckpointPublisher {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: CheckpointPublisherOptions) {}

  get origin(): string {
    return this.options.signer.name;
  }

  /** Publishes a checkpoint of `size` leaves (the settled size of the log); one at a time. */
  publish(size: number): Promise<StoredCheckpoint> {
    const next = this.chain.then(() => this.publishNow(size));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async publishNow(size: number): Promise<StoredCheckpoint> {
    const { store, tiles, signer } = this.options;
    const latest = await store.latestCheckpoint();
    if (latest && latest.size >= size) return latest;
    const node = tiles.nodeReader(size);
    const root = size === 0 ? EMPTY_ROOT : await treeRoot(size, node);
    let proof: Hash[] = [];
    if (latest) {
      const previous = this.ourCheckpointBody(latest);
      // The empty tree is a prefix of every tree: nothing to prove from size 0.
      proof = latest.size === 0 ? [] : await consistencyProof(latest.size, size, node);
      if (latest.size > 0 && !verifyConsistency(latest.size, size, proof, previous.root, root)) {
        throw new LogInconsistencyError(
          `the stored log of ${size} leaves does not extend the signed checkpoint of ${latest.size}: not signing`,
        );
      }
    }
    const text = await signNote(formatCheckpoint({ origin: signer.name, size, root }), [signer]);
    const stored = await store.putCheckpoint({ size, root: b64(root), text });
    if (stored.root !== b64(root)) {
      throw new LogInconsistencyError(`a different root is already signed at size ${size}`);
    }
    this.options.log.debug("checkpoint signed", { size });
    if (!this.options.witnesses) return stored;
    await this.cosign(stored);
    return (await store.checkpointAt(size)) ?? stored;
  }

  /** Sends the checkpoint to the witnesses and stores what they cosigned on it. */
  async cosign(checkpoint: StoredCheckpoint): Promise<void> {
    const witnesses = this.options.witnesses;
    if (!witnesses) return;
    const node = this.options.tiles.nodeReader(checkpoint.size);
    const lines = await witnesses.cosign(checkpoint.text, checkpoint.size, (old) =>
      old === 0 || old === checkpoint.size
        ? Promise.resolve([])
        : consistencyProof(old, checkpoint.size, node),
    );
    if (lines.length === 0) return;
    const current = (await this.options.store.checkpointAt(checkpoint.size)) ?? checkpoint;
    const have = new Set(current.text.split("\n"));
    const added = lines.filter((line) => !have.has(line.replace(/\n$/, "")));
    if (added.length === 0) return;
    await this.options.store.updateCheckpointText(
      checkpoint.size,
      checkpoint.root,
      `${current.text}${added.map((l) => (l.endsWith("\n") ? l : `${l}\n`)).join("")}`,
    );
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
