import { leafHashOf, leafText } from "../../events/transparency/leaf.js";
import { type Hash, type NodeReader, rootOf } from "../../events/transparency/merkle.js";
import {
  decodeHashTile,
  encodeEntryBundle,
  encodeHashTile,
  TILE_WIDTH,
  type TileRef,
  tileNodeReader,
  tileWidth,
} from "../../events/transparency/tiles.js";
import { BoundedLru } from "../bounded-lru.js";
import type { LeafRecord, LeafRun, LogStore } from "./log-store.js";

/**
 * The log's tiles as tlog-tiles lays them out, read from the store: full tiles are stored items
 * (looked up, cached here since they never change); a partial tile is made from what lies past
 * the last full tile — at level 0 the ≤ 255 leaves there, above it the roots of the ≤ 255 full
 * tiles below. No read ever costs more than one tile's worth, whatever the size of the tree.
 */
export class LogTiles {
  private readonly cache: BoundedLru<string, Uint8Array>;

  constructor(
    private readonly store: LogStore,
    cacheSize = 512,
  ) {
    this.cache = new BoundedLru(cacheSize);
  }

  /** The hashes of a tile at a width (1–256), or null when the stored log does not reach that far. */
  async hashTile(level: number, index: number, width: number): Promise<Uint8Array | null> {
    // A partial tile is a prefix of the full one: what was read for a smaller tree is kept, and a
    // larger width reads only the hashes past it (so signing after each pass reads what is new).
    const partialKey = `partial/${level}/${index}`;
    const partial = this.cache.get(partialKey);
    if (partial && partial.length >= width * 32) return partial.subarray(0, width * 32);
    const full = await this.fullHashTile(level, index);
    if (full) {
      this.cache.delete(partialKey);
      return full.subarray(0, width * 32);
    }
    const have = partial ? partial.length / 32 : 0;
    const first = index * TILE_WIDTH + have;
    const last = index * TILE_WIDTH + width;
    const hashes =
      level === 0
        ? (await this.leavesOf(first, last)).map((leaf) => leafHashOf(leaf))
        : await this.store.tileRoots(level - 1, first, last);
    if (hashes.length < width - have) return null;
    const bytes = new Uint8Array(width * 32);
    if (partial) bytes.set(partial);
    bytes.set(encodeHashTile(hashes), have * 32);
    this.remember(partialKey, bytes);
    return bytes;
  }

  /**
   * Leaves a sequencer just stored: they extend the level-0 partial tile kept here when they
   * start right where it ends (leaves that do not continue it are read from the store when asked). Only
   * a sequencer's own runs are noted: they are the leaves as stored, put only if absent.
   */
  noteRun(run: LeafRun): void {
    let at = 0;
    while (at < run.leaves.length) {
      const first = run.leaves[at] as LeafRecord;
      const tile = Math.floor(first.index / TILE_WIDTH);
      const offset = first.index - tile * TILE_WIDTH;
      const inTile = run.leaves.slice(at, at + TILE_WIDTH - offset);
      at += inTile.length;
      const partialKey = `partial/0/${tile}`;
      const partial = this.cache.get(partialKey) ?? new Uint8Array(0);
      if (partial.length !== offset * 32 || offset + inTile.length >= TILE_WIDTH) continue;
      const bytes = new Uint8Array((offset + inTile.length) * 32);
      bytes.set(partial);
      bytes.set(encodeHashTile(inTile.map((leaf) => leafHashOf(leaf))), offset * 32);
      this.remember(partialKey, bytes);
    }
  }

  /** An entry bundle at a width, or null when the stored log does not reach that far. */
  async entryBundle(index: number, width: number): Promise<Uint8Array | null> {
    if (width === TILE_WIDTH) {
      const cached = this.cache.get(`entries/${index}`);
      if (cached) return cached;
      const stored = await this.store.fullEntryBundle(index);
      if (stored) {
        this.remember(`entries/${index}`, stored);
        return stored;
      }
    }
    const leaves = await this.leavesOf(index * TILE_WIDTH, index * TILE_WIDTH + width);
    if (leaves.length < width) return null;
    return encodeEntryBundle(leaves.map((leaf) => leafText(leaf)));
  }

  /** Node hashes of the tree of `size` leaves, read through its tiles. */
  nodeReader(size: number): NodeReader {
    return tileNodeReader(size, async (tile: TileRef) => {
      const bytes = await this.hashTile(tile.level, tile.index, tile.width);
      if (!bytes)
        throw new RangeError(`tile ${tile.level}/${tile.index} is not stored up to width ${tile.width}`);
      return decodeHashTile(bytes, tile.width);
    });
  }

  /**
   * Stores every tile (and entry bundle) that became full between two sizes of the log, level by
   * level. Each is written only if absent: their content follows from the leaves, so a repeat by
   * a restarted or a second sequencer writes the same bytes or nothing.
   */
  async storeFullTiles(from: number, to: number): Promise<void> {
    for (let level = 0; ; level++) {
      const first = Math.floor(from / TILE_WIDTH ** (level + 1));
      const last = Math.floor(to / TILE_WIDTH ** (level + 1));
      if (last === 0) return;
      for (let index = first; index < last; index++) {
        if (tileWidth(level, index, to) !== TILE_WIDTH) continue;
        if (await this.fullHashTile(level, index)) continue;
        await this.buildFullTile(level, index);
      }
    }
  }

  private async buildFullTile(level: number, index: number): Promise<void> {
    const first = index * TILE_WIDTH;
    let hashes: Hash[];
    if (level === 0) {
      const leaves = await this.leavesOf(first, first + TILE_WIDTH);
      if (leaves.length !== TILE_WIDTH) throw new Error(`leaves of tile 0/${index} are missing`);
      hashes = leaves.map((leaf) => leafHashOf(leaf));
      await this.store.putFullEntryBundle(index, encodeEntryBundle(leaves.map((leaf) => leafText(leaf))));
    } else {
      hashes = await this.store.tileRoots(level - 1, first, first + TILE_WIDTH);
      if (hashes.length !== TILE_WIDTH) throw new Error(`tiles below ${level}/${index} are missing`);
    }
    // Bundle, then root, then the tile itself: the tile's presence means the rest is stored.
    await this.store.putFullTile(level, index, encodeHashTile(hashes), rootOf(hashes));
  }

  private async fullHashTile(level: number, index: number): Promise<Uint8Array | null> {
    const key = `${level}/${index}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const stored = await this.store.fullTile(level, index);
    if (stored) this.remember(key, stored);
    return stored;
  }

  private async leavesOf(from: number, to: number): Promise<LeafRecord[]> {
    const leaves: LeafRecord[] = [];
    for await (const leaf of this.store.leaves(from, to)) leaves.push(leaf);
    return leaves;
  }

  private remember(key: string, bytes: Uint8Array): void {
    // Re-inserted, so that a partial tile that keeps growing is the newest, not the first evicted.
    this.cache.set(key, bytes);
  }
}
