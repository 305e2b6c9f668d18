import { generateKeyPairSync, sign } from "node:crypto";
import type { StoredEvent } from "../../events/stored-event.js";
import { formatCheckpoint } from "../../events/transparency/checkpoint.js";
import { ed25519RawPublicKey } from "../../events/transparency/ed25519.js";
import { leafText, parseLeaf } from "../../events/transparency/leaf.js";
import {
  consistencyProof,
  type Hash,
  hashLeaf,
  inclusionProof,
  memoryNodeReader,
  rootOf,
} from "../../events/transparency/merkle.js";
import {
  keyId,
  type NoteSigner,
  parseVerifierKey,
  signNote,
  verifierKey,
} from "../../events/transparency/note.js";
import { encodeEntryBundle, encodeHashTile, TILE_WIDTH } from "../../events/transparency/tiles.js";
import type { FeedItem, LogSource } from "../../scripts/verify/source.js";

/** A log key for tests: its signer and vkey. */
export function testLogKey(name = "localhost/incident-ledger") {
  const { privateKey } = generateKeyPairSync("ed25519");
  const publicKey = ed25519RawPublicKey(privateKey);
  const signer: NoteSigner = {
    name,
    keyId: keyId(name, publicKey),
    sign: async (m) => new Uint8Array(sign(null, m, privateKey)),
  };
  const vkey = verifierKey(name, publicKey);
  return { signer, vkey, key: parseVerifierKey(vkey) };
}

/**
 * An archive in memory as the verifier sees it, with the table (served events) and the log
 * (leaves, checkpoint) kept apart so that a test can tamper with either, as someone with write
 * access to the tables could.
 */
export class MemoryArchive implements LogSource {
  /** Leaf bytes in log order. */
  leaves: Uint8Array[] = [];
  /** What GET /incidents/{id}/events serves. */
  served = new Map<string, StoredEvent[]>();
  note = "";
  extraSignatures = "";

  constructor(
    private readonly signer: NoteSigner,
    readonly origin = signer.name,
  ) {}

  /** Appends events in log order (to the table and the log) without signing. */
  append(events: readonly StoredEvent[]): void {
    for (const e of events) {
      this.leaves.push(leafText(e));
      const list = this.served.get(e.incidentId) ?? [];
      list.push(structuredClone(e));
      this.served.set(e.incidentId, list);
    }
  }

  hashes(size = this.leaves.length): Hash[] {
    return this.leaves.slice(0, size).map((l) => hashLeaf(l));
  }

  /** Signs a checkpoint of the current leaves (or of a given root, to forge one). */
  async sign(options: { size?: number; root?: Hash; signer?: NoteSigner } = {}): Promise<string> {
    const size = options.size ?? this.leaves.length;
    const root = options.root ?? rootOf(this.hashes(size));
    this.note = await signNote(formatCheckpoint({ origin: this.origin, size, root }), [
      options.signer ?? this.signer,
    ]);
    return this.note;
  }

  async inclusion(index: number, size = this.leaves.length): Promise<Hash[]> {
    return inclusionProof(index, size, memoryNodeReader(this.hashes(size)));
  }

  async checkpoint(): Promise<string> {
    return `${this.note}${this.extraSignatures}`;
  }

  async consistency(from: number, to: number): Promise<Hash[]> {
    return consistencyProof(from, to, memoryNodeReader(this.hashes(to)));
  }

  async entries(ref: { index: number; width: number }): Promise<Uint8Array> {
    this.bundleReads++;
    const start = ref.index * TILE_WIDTH;
    return encodeEntryBundle(this.leaves.slice(start, start + ref.width));
  }

  /** Reads of hash tiles, to show what catching up costs. */
  tileReads = 0;

  async tile(ref: { level: number; index: number; width: number }): Promise<Uint8Array> {
    this.tileReads++;
    // Level l holds the roots of the full tiles of level l-1 (tlog-tiles).
    let hashes = this.hashes();
    for (let l = 0; l < ref.level; l++) {
      const next: Hash[] = [];
      for (let i = 0; i + TILE_WIDTH <= hashes.length; i += TILE_WIDTH)
        next.push(rootOf(hashes.slice(i, i + TILE_WIDTH)));
      hashes = next;
    }
    const start = ref.index * TILE_WIDTH;
    return encodeHashTile(hashes.slice(start, start + ref.width));
  }

  /** Entry bundles read, for the same reason. */
  bundleReads = 0;

  /** GET /feed: each leaf's event as the table serves it, in log order (none where the table has none). */
  async feed(after: number, limit: number): Promise<{ items: FeedItem[]; next: number | null }> {
    this.feedReads++;
    const items: FeedItem[] = [];
    let index = after + 1;
    for (; index < this.leaves.length && items.length < limit; index++) {
      const leaf = parseLeaf(this.leaves[index] as Uint8Array);
      const event = this.served.get(leaf.incidentId)?.find((e) => e.version === leaf.version);
      if (event) items.push({ index, event: structuredClone(event) });
    }
    return { items, next: index < this.leaves.length ? index - 1 : null };
  }

  /** Pages of the feed read. */
  feedReads = 0;

  async events(incidentId: string, after: number): Promise<{ items: StoredEvent[]; next: number | null }> {
    const all = this.served.get(incidentId);
    if (!all) throw new Error(`GET /incidents/${incidentId}/events answered 404`);
    const items = all.filter((e) => e.version > after).slice(0, 500);
    const last = items.at(-1);
    const more = last !== undefined && all.some((e) => e.version > last.version);
    return { items: structuredClone(items), next: more ? (last as StoredEvent).version : null };
  }
}
