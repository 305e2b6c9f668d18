import { GENESIS_HASH, hashEvent, type StoredEvent } from "../../events/stored-event.js";
import { type Checkpoint, parseCheckpoint } from "../../events/transparency/checkpoint.js";
import { type LeafFields, leafHashOf } from "../../events/transparency/leaf.js";
import {
  EMPTY_ROOT,
  equalHashes,
  type Hash,
  hashChildren,
  verifyConsistency,
  verifyInclusion,
} from "../../events/transparency/merkle.js";
import { ed25519NoteVerifier, type VerifierKey, verifyNote } from "../../events/transparency/note.js";
import { cosignedBy, type Policy, quorumMet } from "../../events/transparency/policy.js";

/** The first thing that does not hold; its message is what the verifier prints. */
export class VerificationError extends Error {
  override name = "VerificationError";
}

const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

/** The checkpoint's signature by the log's key, its origin, and (with a policy) its witness quorum. */
export function checkSignedCheckpoint(note: string, logKey: VerifierKey, policy?: Policy): Checkpoint {
  let text: string;
  try {
    text = verifyNote(note, [ed25519NoteVerifier(logKey)]).text;
  } catch (e) {
    throw new VerificationError(`checkpoint signature: ${(e as Error).message} (key ${logKey.name})`);
  }
  let cp: Checkpoint;
  try {
    cp = parseCheckpoint(text);
  } catch (e) {
    throw new VerificationError(`checkpoint: ${(e as Error).message}`);
  }
  if (cp.origin !== logKey.name) {
    throw new VerificationError(`checkpoint origin ${cp.origin} is not the key's name ${logKey.name}`);
  }
  if (policy) {
    const names = cosignedBy(policy, note);
    if (!quorumMet(policy, names)) {
      const have = [...names].join(", ") || "none";
      throw new VerificationError(
        `witness quorum ${policy.quorum} not met (valid cosignatures from: ${have})`,
      );
    }
  }
  return cp;
}

/** The remembered checkpoint and the new one describe one append-only log, or this names how not. */
export function checkAgainstRemembered(
  remembered: { size: number; root: Hash } | null,
  cp: Checkpoint,
  proof: readonly Hash[] | null,
): void {
  if (!remembered || remembered.size === 0) return;
  if (cp.size < remembered.size) {
    throw new VerificationError(
      `the log shrank: checkpoint size ${cp.size}, the state remembers ${remembered.size}`,
    );
  }
  if (cp.size === remembered.size) {
    if (!equalHashes(cp.root, remembered.root)) {
      throw new VerificationError(
        `fork: checkpoint root ${b64(cp.root)} at size ${cp.size} differs from the remembered ${b64(remembered.root)}`,
      );
    }
    return;
  }
  if (!proof || !verifyConsistency(remembered.size, cp.size, proof, remembered.root, cp.root)) {
    throw new VerificationError(
      `the log was rewritten: no valid consistency proof from the remembered size ${remembered.size} to ${cp.size}`,
    );
  }
}

/**
 * RFC 9162 root of leaves fed one at a time, in O(log n) memory: a stack of the complete subtrees
 * so far (sizes the binary digits of the count), folded right to left at the end.
 */
export class RootBuilder {
  private readonly stack: { level: number; hash: Hash }[] = [];
  count = 0;

  /**
   * A builder holding a tree of `size` leaves already, from the hashes of its border subtrees
   * (those `borderNodes(size)` names, left to right): catching up reads only the new leaves.
   */
  static resume(size: number, borderHashes: readonly Hash[]): RootBuilder {
    const builder = new RootBuilder();
    const nodes = borderNodes(size);
    if (nodes.length !== borderHashes.length) throw new RangeError("one hash per border subtree");
    nodes.forEach((n, i) => {
      builder.stack.push({ level: n.level, hash: borderHashes[i] as Hash });
    });
    builder.count = size;
    return builder;
  }

  push(leafHash: Hash): void {
    let node = { level: 0, hash: leafHash };
    for (let top = this.stack.at(-1); top && top.level === node.level; top = this.stack.at(-1)) {
      this.stack.pop();
      node = { level: node.level + 1, hash: hashChildren(top.hash, node.hash) };
    }
    this.stack.push(node);
    this.count++;
  }

  root(): Hash {
    if (this.stack.length === 0) return EMPTY_ROOT;
    let acc = (this.stack.at(-1) as { hash: Hash }).hash;
    for (let i = this.stack.length - 2; i >= 0; i--)
      acc = hashChildren((this.stack[i] as { hash: Hash }).hash, acc);
    return acc;
  }
}

/** The complete subtrees a tree of `size` leaves is made of, largest (leftmost) first. */
export function borderNodes(size: number): { level: number; index: number }[] {
  const out: { level: number; index: number }[] = [];
  let start = 0;
  for (let level = Math.floor(Math.log2(Math.max(size, 1))); level >= 0; level--) {
    const width = 2 ** level;
    if (size - start >= width) {
      out.push({ level, index: start / width });
      start += width;
    }
  }
  return out;
}

/** An incident's last version covered by a verified checkpoint, and its chain hash. */
export interface IncidentHead {
  version: number;
  hash: string;
}

const NO_HEAD: IncidentHead = { version: 0, hash: GENESIS_HASH };

/**
 * One incident's leaves in log order, packed: each leaf's hash (which covers all four of its
 * fields) and its log index, 40 bytes a leaf, so a full check of a large log holds no object
 * per leaf. A leaf is held until its event is checked (`release`): events are checked in log
 * order, so what is held is the stretch of leaves read ahead of them, not the whole log.
 */
export class LoggedLeaves {
  private hashes = new Uint8Array(32 * 4);
  private indices = new Float64Array(4);
  /** Leaves pushed in all; the k-th is the incident's k-th logged version after its head. */
  length = 0;
  /** Leaves released: the first `released` are no longer held. */
  private released = 0;
  /** Where leaf `released` sits in the arrays. */
  private start = 0;

  push(index: number, leafHash: Hash): void {
    const held = this.length - this.released;
    if (this.start + held === this.indices.length) {
      // Full to the end: move the held leaves to the front, into arrays twice as long only when
      // they fill more than half of these.
      const capacity = held * 2 > this.indices.length ? this.indices.length * 2 : this.indices.length;
      const hashes = new Uint8Array(32 * capacity);
      hashes.set(this.hashes.subarray(32 * this.start, 32 * (this.start + held)));
      const indices = new Float64Array(capacity);
      indices.set(this.indices.subarray(this.start, this.start + held));
      this.hashes = hashes;
      this.indices = indices;
      this.start = 0;
    }
    const at = this.start + held;
    this.hashes.set(leafHash, 32 * at);
    this.indices[at] = index;
    this.length += 1;
  }

  private slot(k: number): number {
    if (k < this.released || k >= this.length) throw new RangeError(`leaf ${k} is not held`);
    return this.start + k - this.released;
  }

  /** The log index of the k-th leaf. */
  indexOf(k: number): number {
    return this.indices[this.slot(k)] as number;
  }

  /** Whether the k-th leaf is the one with this leaf hash. */
  holds(k: number, leafHash: Hash): boolean {
    const at = this.slot(k);
    return equalHashes(this.hashes.subarray(32 * at, 32 * at + 32), leafHash);
  }

  /** Lets go of the leaves before the k-th: their events are checked. */
  release(k: number): void {
    const by = Math.min(k, this.length) - this.released;
    if (by <= 0) return;
    this.released += by;
    this.start += by;
  }
}

/**
 * Leaves in log order: each incident's versions must come 1, 2, 3 … (after the head already
 * verified, when catching up) with no gap, no repeat. Keeps each leaf's hash, to compare with
 * the events the archive serves.
 */
export class LeafIndex {
  readonly byIncident = new Map<string, { head: IncidentHead; logged: LoggedLeaves; lastHash: string }>();

  constructor(private readonly heads: ReadonlyMap<string, IncidentHead> = new Map()) {}

  add(index: number, leaf: LeafFields, leafHash: Hash): void {
    let entry = this.byIncident.get(leaf.incidentId);
    if (!entry) {
      const head = this.heads.get(leaf.incidentId) ?? NO_HEAD;
      entry = { head, logged: new LoggedLeaves(), lastHash: head.hash };
      this.byIncident.set(leaf.incidentId, entry);
    }
    const last = entry.head.version + entry.logged.length;
    if (leaf.version !== last + 1) {
      throw new VerificationError(
        `leaf ${index}: incident ${leaf.incidentId} version ${leaf.version} comes after version ${last} in the log`,
      );
    }
    entry.logged.push(index, leafHash);
    entry.lastHash = leaf.hash;
  }

  /** The heads after these leaves: the earlier ones, moved on by every incident logged here. */
  headsAfter(): Map<string, IncidentHead> {
    const out = new Map(this.heads);
    for (const [incidentId, { head, logged, lastHash }] of this.byIncident) {
      if (logged.length > 0) out.set(incidentId, { version: head.version + logged.length, hash: lastHash });
    }
    return out;
  }
}

/**
 * One incident's served events against its chain and its leaves, from its verified head (version
 * 0 for a full check). Events past the checkpoint (not logged yet) must still chain; every logged
 * version must be served, and match its leaf.
 */
export class IncidentCheck {
  private previous: string;
  private version: number;
  private readonly first: number;

  constructor(
    private readonly incidentId: string,
    private readonly logged: LoggedLeaves,
    head: IncidentHead = NO_HEAD,
  ) {
    this.previous = head.hash;
    this.version = head.version;
    this.first = head.version + 1;
  }

  /** The next event served; `index`: the log index it was served at (the feed's), if any. */
  event(event: StoredEvent, index?: number): void {
    const where = `incident ${this.incidentId} version ${event.version}`;
    if (event.incidentId !== this.incidentId) {
      throw new VerificationError(`${where}: served under another incident`);
    }
    if (event.version !== this.version + 1) {
      throw new VerificationError(
        `incident ${this.incidentId}: version ${event.version} served after ${this.version}`,
      );
    }
    if (hashEvent(event) !== event.hash) {
      throw new VerificationError(`${where}: the event's content does not hash to its stored hash (edited)`);
    }
    if (event.prevHash !== this.previous) {
      throw new VerificationError(`${where}: prevHash does not link to version ${this.version}'s hash`);
    }
    const k = event.version - this.first;
    if (k < this.logged.length && !this.logged.holds(k, leafHashOf(event))) {
      throw new VerificationError(
        `${where}: the event served (eventId ${event.eventId}, hash ${event.hash}) is not the one log leaf ${this.logged.indexOf(k)} holds (another eventId or hash)`,
      );
    }
    if (k < this.logged.length && index !== undefined && index !== this.logged.indexOf(k)) {
      throw new VerificationError(
        `${where}: served at log index ${index}, but its leaf is ${this.logged.indexOf(k)}`,
      );
    }
    this.previous = event.hash;
    this.version = event.version;
    this.logged.release(k + 1);
  }

  /** Whether the leaves added so far hold this version of the incident. */
  logs(version: number): boolean {
    return version - this.first < this.logged.length;
  }

  end(): void {
    const served = this.version - this.first + 1;
    if (served < this.logged.length) {
      throw new VerificationError(
        `incident ${this.incidentId} version ${this.version + 1}: in the log (leaf ${this.logged.indexOf(served)}) but not served`,
      );
    }
  }
}

/** Offline check of one event against a tlog-proof: its leaf, inclusion, signed checkpoint. */
export function checkEventProof(input: {
  event: StoredEvent;
  index: number;
  inclusion: readonly Hash[];
  checkpoint: Checkpoint;
}): void {
  const { event, index, inclusion, checkpoint } = input;
  const where = `incident ${event.incidentId} version ${event.version}`;
  if (hashEvent(event) !== event.hash) {
    throw new VerificationError(`${where}: the event's content does not hash to its hash`);
  }
  const leafHash = leafHashOf(event);
  if (!verifyInclusion(leafHash, index, checkpoint.size, inclusion, checkpoint.root)) {
    throw new VerificationError(
      `${where}: not included at index ${index} in the checkpoint of size ${checkpoint.size} (inclusion proof fails)`,
    );
  }
}
