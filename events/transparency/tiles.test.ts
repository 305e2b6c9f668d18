import { describe, expect, it } from "vitest";
import { MalformedTileError } from "./errors.js";
import { hashLeaf, inclusionProof, memoryNodeReader, rootOf, treeRoot } from "./merkle.js";
import {
  decodeEntryBundle,
  decodeHashTile,
  encodeEntryBundle,
  encodeHashTile,
  entriesPath,
  parseTilePath,
  type TileRef,
  tileNodeReader,
  tilePath,
  tilesOfTree,
} from "./tiles.js";

describe("tile paths", () => {
  it("given the spec's example index, then it is x001/x234/067, with .p/W for a partial tile", () => {
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe("tile/0/x001/x234/067");
    expect(tilePath({ level: 2, index: 67, width: 5 })).toBe("tile/2/067.p/5");
    expect(entriesPath({ index: 1000, width: 256 })).toBe("tile/entries/x001/000");
    expect(entriesPath({ index: 0, width: 1 })).toBe("tile/entries/000.p/1");
  });

  it("parses what it writes", () => {
    for (const ref of [
      { level: 0, index: 1234067, width: 256 },
      { level: 63, index: 0, width: 255 },
      { level: 1, index: 999, width: 1 },
    ]) {
      expect(parseTilePath(tilePath(ref))).toEqual({ kind: "hash", ...ref });
      expect(parseTilePath(`/${entriesPath(ref)}`)).toEqual({
        kind: "entries",
        index: ref.index,
        width: ref.width,
      });
    }
  });

  it("refuses every other spelling", () => {
    for (const bad of [
      "tile/0/x000/005",
      "tile/0/5",
      "tile/00/005",
      "tile/64/005",
      "tile/0/005.p/256",
      "tile/0/005.p/0",
      "tile/0/005.p/05",
      "tile/0/001/002",
      "tile/0/x001",
      "tile/entries",
      "tile/-1/000",
      "tiles/0/000",
      "tile/0/000.p/",
    ]) {
      expect(parseTilePath(bad), bad).toBeNull();
    }
  });
});

describe("entry bundles and hash tiles", () => {
  it("round-trip with big-endian uint16 length prefixes", () => {
    const leaves = [new Uint8Array([]), new TextEncoder().encode("a"), new Uint8Array(300).fill(7)];
    const bytes = encodeEntryBundle(leaves);
    expect(Array.from(bytes.slice(0, 5))).toEqual([0, 0, 0, 1, 97]);
    expect(Array.from(bytes.slice(5, 7))).toEqual([1, 44]);
    expect(decodeEntryBundle(bytes)).toEqual(leaves);
    expect(() => decodeEntryBundle(bytes.slice(0, bytes.length - 1))).toThrow(MalformedTileError);
    const hashes = leaves.map(hashLeaf);
    expect(decodeHashTile(encodeHashTile(hashes), 3)).toEqual(hashes);
    expect(() => decodeHashTile(encodeHashTile(hashes), 4)).toThrow(MalformedTileError);
  });
});

describe("a tree read through its tiles", () => {
  // Builds the tiles of a tree the way tlog-tiles defines them, from the leaf hashes.
  function tilesFor(leafHashes: Uint8Array[]) {
    const byLevel: Uint8Array[][] = [leafHashes];
    while ((byLevel[byLevel.length - 1] as Uint8Array[]).length >= 256) {
      const below = byLevel[byLevel.length - 1] as Uint8Array[];
      const next: Uint8Array[] = [];
      for (let i = 0; i + 256 <= below.length; i += 256) next.push(rootOf(below.slice(i, i + 256)));
      byLevel.push(next);
    }
    return async (t: TileRef) =>
      (byLevel[t.level] as Uint8Array[]).slice(t.index * 256, t.index * 256 + t.width);
  }

  it("given the spec's size 70,000, then its tiles are 273 full, a partial 112, a full and a partial 17 at level 1, one at level 2", () => {
    const tiles = tilesOfTree(70_000);
    expect(tiles.filter((t) => t.level === 0 && t.width === 256)).toHaveLength(273);
    expect(tiles.filter((t) => t.level === 0 && t.width < 256)).toEqual([
      { level: 0, index: 273, width: 112 },
    ]);
    expect(tiles.filter((t) => t.level === 1)).toEqual([
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 1, width: 17 },
    ]);
    expect(tiles.filter((t) => t.level === 2)).toEqual([{ level: 2, index: 0, width: 1 }]);
    expect(tilesOfTree(256)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 1, index: 0, width: 1 },
    ]);
  });

  it("gives the same roots and proofs as the leaves themselves, across tile boundaries", async () => {
    const leafHashes = Array.from({ length: 66_000 }, (_, i) =>
      hashLeaf(new Uint8Array([i & 255, i >> 8, i >> 16])),
    );
    const read = tilesFor(leafHashes);
    for (const size of [1, 255, 256, 257, 511, 512, 65_535, 65_536, 65_537, 66_000]) {
      const tiles = tileNodeReader(size, read);
      const memory = memoryNodeReader(leafHashes.slice(0, size));
      expect(await treeRoot(size, tiles)).toEqual(await treeRoot(size, memory));
      for (const index of [0, size - 1, Math.floor(size / 2)]) {
        expect(await inclusionProof(index, size, tiles)).toEqual(await inclusionProof(index, size, memory));
      }
    }
  });
});
