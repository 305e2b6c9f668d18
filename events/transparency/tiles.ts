import { MalformedTileError } from "./errors.js";
import { HASH_SIZE, type Hash, type NodeReader, rootOf } from "./merkle.js";

/** c2sp.org/tlog-tiles: tiles are subtrees of height 8, 256 hashes (or entries) wide. */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
const MAX_LEVEL = 63;
const MAX_ENTRY = 0xffff;

export interface TileRef {
  level: number;
  index: number;
  /** 1–256; below 256 the tile is partial (`.p/<W>`). */
  width: number;
}

/** 1234067 → "x001/x234/067": 3-digit groups, all but the last prefixed with `x`. */
export function encodeTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new RangeError("tile index must be a non-negative integer");
  const groups: string[] = [];
  let n = index;
  do {
    groups.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

function widthSuffix(width: number): string {
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH)
    throw new RangeError("tile width must be 1–256");
  return width === TILE_WIDTH ? "" : `.p/${width}`;
}

export function tilePath({ level, index, width }: TileRef): string {
  if (!Number.isInteger(level) || level < 0 || level > MAX_LEVEL)
    throw new RangeError("tile level must be 0–63");
  return `tile/${level}/${encodeTileIndex(index)}${widthSuffix(width)}`;
}

export function entriesPath({ index, width }: { index: number; width: number }): string {
  return `tile/entries/${encodeTileIndex(index)}${widthSuffix(width)}`;
}

export type ParsedTilePath =
  | { kind: "hash"; level: number; index: number; width: number }
  | { kind: "entries"; index: number; width: number };

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * Parses `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]` (a leading `/` is allowed), only in
 * the one spelling tlog-tiles gives each tile: null for anything else (e.g. `x000/005`, `007.p/256`).
 */
export function parseTilePath(path: string): ParsedTilePath | null {
  const parts = path.replace(/^\//, "").split("/");
  if (parts[0] !== "tile" || parts.length < 3) return null;
  const head = parts[1] as string;
  let rest = parts.slice(2);
  let width = TILE_WIDTH;
  const last = rest[rest.length - 1] as string;
  const beforeLast = rest[rest.length - 2];
  if (beforeLast?.endsWith(".p")) {
    if (!DECIMAL.test(last)) return null;
    width = Number(last);
    if (width < 1 || width >= TILE_WIDTH) return null;
    rest = [...rest.slice(0, -2), beforeLast.slice(0, -2)];
  }
  const index = parseIndex(rest);
  if (index === null) return null;
  if (head === "entries") return { kind: "entries", index, width };
  if (!DECIMAL.test(head)) return null;
  const level = Number(head);
  if (level > MAX_LEVEL) return null;
  return { kind: "hash", level, index, width };
}

function parseIndex(groups: string[]): number | null {
  if (groups.length === 0) return null;
  let n = 0;
  for (const [i, g] of groups.entries()) {
    const isLast = i === groups.length - 1;
    const digits = isLast ? g : g.startsWith("x") ? g.slice(1) : null;
    if (digits === null || !/^[0-9]{3}$/.test(digits)) return null;
    if (i === 0 && !isLast && digits === "000") return null;
    n = n * 1000 + Number(digits);
  }
  return Number.isSafeInteger(n) ? n : null;
}

/** Entries prefixed with their big-endian uint16 length. */
export function encodeEntryBundle(leaves: readonly Uint8Array[]): Uint8Array {
  const total = leaves.reduce((sum, l) => sum + 2 + l.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const leaf of leaves) {
    if (leaf.length > MAX_ENTRY) throw new RangeError("an entry is longer than 65535 bytes");
    out[at] = leaf.length >> 8;
    out[at + 1] = leaf.length & 0xff;
    out.set(leaf, at + 2);
    at += 2 + leaf.length;
  }
  return out;
}

export function decodeEntryBundle(bytes: Uint8Array): Uint8Array[] {
  const leaves: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new MalformedTileError("entry bundle ends inside a length prefix");
    const length = ((bytes[at] as number) << 8) | (bytes[at + 1] as number);
    if (at + 2 + length > bytes.length) throw new MalformedTileError("entry bundle ends inside an entry");
    leaves.push(bytes.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return leaves;
}

export function encodeHashTile(hashes: readonly Hash[]): Uint8Array {
  const out = new Uint8Array(hashes.length * HASH_SIZE);
  hashes.forEach((h, i) => {
    if (h.length !== HASH_SIZE) throw new RangeError("tile hashes are 32 bytes");
    out.set(h, i * HASH_SIZE);
  });
  return out;
}

export function decodeHashTile(bytes: Uint8Array, width?: number): Hash[] {
  if (bytes.length % HASH_SIZE !== 0)
    throw new MalformedTileError("hash tile is not a whole number of hashes");
  const count = bytes.length / HASH_SIZE;
  if (width !== undefined && count !== width)
    throw new MalformedTileError(`hash tile holds ${count}, not ${width}`);
  return Array.from({ length: count }, (_, i) => bytes.slice(i * HASH_SIZE, (i + 1) * HASH_SIZE));
}

/**
 * The width of tile `index` at tile level `level` in a tree of `size` leaves, or 0 when the tile
 * does not exist at that size (tlog-tiles: floor(size / 256^level) hashes at that level).
 */
export function tileWidth(level: number, index: number, size: number): number {
  const hashesAtLevel = Math.floor(size / TILE_WIDTH ** level);
  return Math.max(0, Math.min(TILE_WIDTH, hashesAtLevel - index * TILE_WIDTH));
}

/** The tiles, at every level, of a tree of `size` leaves (full ones and the partial ones at its edge). */
export function tilesOfTree(size: number): TileRef[] {
  const out: TileRef[] = [];
  for (let level = 0; Math.floor(size / TILE_WIDTH ** level) > 0; level++) {
    const hashes = Math.floor(size / TILE_WIDTH ** level);
    for (let index = 0; index * TILE_WIDTH < hashes; index++) {
      out.push({ level, index, width: tileWidth(level, index, size) });
    }
  }
  return out;
}

/** Reads a tile's hashes (tlog-tiles layout) at the width the caller's tree size gives it. */
export type TileReader = (tile: TileRef) => Promise<Hash[]>;

/**
 * A NodeReader over tiles, as a client that holds a checkpoint of `size` leaves reads them: node
 * (level, index) is the root of 2^(level mod 8) consecutive hashes of one tile at level ⌊level/8⌋.
 * Each tile is read once per reader.
 */
export function tileNodeReader(size: number, readTile: TileReader): NodeReader {
  const cache = new Map<string, Promise<Hash[]>>();
  return async (level, index) => {
    const tileLevel = Math.floor(level / TILE_HEIGHT);
    const span = 2 ** (level % TILE_HEIGHT);
    const first = index * span;
    const tileIndex = Math.floor(first / TILE_WIDTH);
    const width = tileWidth(tileLevel, tileIndex, size);
    const offset = first - tileIndex * TILE_WIDTH;
    if (offset + span > width) throw new RangeError(`node ${level}/${index} is beyond a tree of ${size}`);
    const key = `${tileLevel}/${tileIndex}`;
    let tile = cache.get(key);
    if (!tile) {
      tile = readTile({ level: tileLevel, index: tileIndex, width });
      cache.set(key, tile);
    }
    const hashes = await tile;
    if (hashes.length !== width)
      throw new MalformedTileError(`tile ${key} holds ${hashes.length}, not ${width}`);
    return rootOf(hashes.slice(offset, offset + span));
  };
}
