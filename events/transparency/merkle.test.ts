import { describe, expect, it } from "vitest";
import {
  consistencyProof,
  EMPTY_ROOT,
  hashLeaf,
  inclusionProof,
  memoryNodeReader,
  rootOf,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
} from "./merkle.js";

const leaves = (n: number) =>
  Array.from({ length: n }, (_, i) => hashLeaf(new TextEncoder().encode(`leaf ${i}`)));

describe("proofs built through a node reader", () => {
  it("given trees of 0 to 40 leaves, when the root is read through complete subtrees, then it equals MTH", async () => {
    for (let size = 0; size <= 40; size++) {
      const hashes = leaves(size);
      expect(await treeRoot(size, memoryNodeReader(hashes))).toEqual(rootOf(hashes));
    }
    expect(rootOf([])).toEqual(EMPTY_ROOT);
  });

  it("given every leaf of trees up to 33, when proven, then the proof verifies and fails for a neighbour", async () => {
    for (let size = 1; size <= 33; size++) {
      const hashes = leaves(size);
      const root = rootOf(hashes);
      for (let index = 0; index < size; index++) {
        const proof = await inclusionProof(index, size, memoryNodeReader(hashes));
        expect(verifyInclusion(hashes[index] as Uint8Array, index, size, proof, root)).toBe(true);
        if (size > 1) {
          const other = (index + 1) % size;
          expect(verifyInclusion(hashes[other] as Uint8Array, index, size, proof, root)).toBe(false);
        }
      }
    }
  });

  it("given every pair of sizes up to 33, when consistency is proven, then it verifies, and not against another tree", async () => {
    const hashes = leaves(33);
    const forked = [...hashes];
    forked[0] = hashLeaf(new TextEncoder().encode("rewritten"));
    for (let size2 = 1; size2 <= 33; size2++) {
      const node = memoryNodeReader(hashes.slice(0, size2));
      const root2 = rootOf(hashes.slice(0, size2));
      for (let size1 = 1; size1 <= size2; size1++) {
        const proof = await consistencyProof(size1, size2, node);
        const root1 = rootOf(hashes.slice(0, size1));
        expect(verifyConsistency(size1, size2, proof, root1, root2)).toBe(true);
        expect(verifyConsistency(size1, size2, proof, rootOf(forked.slice(0, size1)), root2)).toBe(false);
      }
    }
  });

  it("refuses to prove what lies beyond the tree", async () => {
    const node = memoryNodeReader(leaves(4));
    await expect(inclusionProof(4, 4, node)).rejects.toThrow(RangeError);
    await expect(consistencyProof(5, 4, node)).rejects.toThrow(RangeError);
    expect(await consistencyProof(0, 4, node)).toEqual([]);
  });
});
