import { hash } from "node:crypto";

/**
 * RFC 9162 (RFC 6962) Merkle trees over SHA-256.
 *
 * Tree sizes and indexes are JavaScript numbers; bit operators would truncate them to 32 bits,
 * so every shift below is a division (sizes stay exact up to 2^53).
 */
export type Hash = Uint8Array;

export const HASH_SIZE = 32;

// A leaf and a node are hashed once each for every event a log holds, and again by every
// verify: one-shot over one buffer, the prefix byte written in front, makes no Hash object.
export function hashLeaf(leaf: Uint8Array): Hash {
  const input = Buffer.allocUnsafe(1 + leaf.length);
  input[0] = 0x00;
  input.set(leaf, 1);
  return sha256(input);
}

export function hashChildren(left: Hash, right: Hash): Hash {
  const input = Buffer.allocUnsafe(1 + left.length + right.length);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return sha256(input);
}

/** A plain Uint8Array view of the digest, so hashes compare equal whichever way they were made. */
function sha256(input: Uint8Array | string): Hash {
  const digest = hash("sha256", input, "buffer");
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength);
}

export const EMPTY_ROOT: Hash = sha256("");

export function equalHashes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The largest power of two strictly below n (n ≥ 2): RFC 9162's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 9162 MTH over leaf hashes held in memory (small trees, tests, a 256-wide tile). */
export function rootOf(leafHashes: readonly Hash[]): Hash {
  if (leafHashes.length === 0) return EMPTY_ROOT;
  return mth(leafHashes, 0, leafHashes.length);
}

function mth(hashes: readonly Hash[], start: number, end: number): Hash {
  const n = end - start;
  if (n === 1) return hashes[start] as Hash;
  const k = splitPoint(n);
  return hashChildren(mth(hashes, start, start + k), mth(hashes, start + k, end));
}

/**
 * Reads the hash of the complete subtree covering leaves [index·2^level, (index+1)·2^level).
 * Callers only ask for subtrees that lie wholly inside the tree they name.
 */
export type NodeReader = (level: number, index: number) => Promise<Hash>;

function isPowerOfTwo(n: number): boolean {
  return n >= 1 && Number.isInteger(Math.log2(n)) && 2 ** Math.log2(n) === n;
}

/** MTH(D[start:end]) for a range that starts on a boundary of its own size's split (as RFC 9162 ranges do). */
async function rangeHash(start: number, end: number, node: NodeReader): Promise<Hash> {
  const n = end - start;
  if (isPowerOfTwo(n) && start % n === 0) {
    const level = Math.log2(n);
    return node(level, start / n);
  }
  const k = splitPoint(n);
  const [left, right] = await Promise.all([
    rangeHash(start, start + k, node),
    rangeHash(start + k, end, node),
  ]);
  return hashChildren(left, right);
}

function checkSize(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${name} must be a non-negative integer`);
}

export async function treeRoot(size: number, node: NodeReader): Promise<Hash> {
  checkSize("size", size);
  if (size === 0) return EMPTY_ROOT;
  return rangeHash(0, size, node);
}

/** RFC 9162 §2.1.3.1 PATH(index, D[0:size]), leaf's sibling first. */
export async function inclusionProof(index: number, size: number, node: NodeReader): Promise<Hash[]> {
  checkSize("index", index);
  checkSize("size", size);
  if (index >= size) throw new RangeError(`index ${index} is not below tree size ${size}`);
  const ranges: [number, number][] = [];
  let start = 0;
  let end = size;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (index - start < k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      start += k;
    }
  }
  ranges.reverse();
  return Promise.all(ranges.map(([s, e]) => rangeHash(s, e, node)));
}

/**
 * RFC 9162 §2.1.4.1 PROOF(size1, D[0:size2]). Empty when size1 is 0 or equal to size2: there is
 * nothing to prove (and a verifier refuses a proof from the empty tree anyway).
 */
export async function consistencyProof(size1: number, size2: number, node: NodeReader): Promise<Hash[]> {
  checkSize("size1", size1);
  checkSize("size2", size2);
  if (size1 > size2) throw new RangeError(`size1 ${size1} is beyond size2 ${size2}`);
  if (size1 === 0 || size1 === size2) return [];
  const ranges: [number, number][] = [];
  let start = 0;
  let end = size2;
  let whole = true;
  while (size1 !== end) {
    const k = splitPoint(end - start);
    if (size1 - start <= k) {
      ranges.push([start + k, end]);
      end = start + k;
    } else {
      ranges.push([start, start + k]);
      start += k;
      whole = false;
    }
  }
  if (!whole) ranges.push([start, end]);
  ranges.reverse();
  return Promise.all(ranges.map(([s, e]) => rangeHash(s, e, node)));
}

function allHashes(...groups: (readonly Uint8Array[])[]): boolean {
  return groups.every((g) => g.every((h) => h instanceof Uint8Array && h.length === HASH_SIZE));
}

const isOdd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);

/** RFC 9162 §2.1.3.2. False (never throws) for any malformed input: wrong sizes, indexes, lengths. */
export function verifyInclusion(
  leafHash: Hash,
  index: number,
  size: number,
  proof: readonly Hash[],
  root: Hash,
): boolean {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return false;
  if (!allHashes([leafHash, root], proof)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = hashChildren(p, r);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalHashes(r, root);
}

/**
 * RFC 9162 §2.1.4.2. A proof from the empty tree proves nothing and is refused (as transparency-dev
 * does); equal sizes need an empty proof and equal roots.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Hash[],
  root1: Hash,
  root2: Hash,
): boolean {
  if (!Number.isSafeInteger(size1) || !Number.isSafeInteger(size2)) return false;
  if (size1 <= 0 || size2 < size1) return false;
  // As transparency-dev does, equal sizes only compare the roots (their vectors hold this case).
  if (size1 === size2) return proof.length === 0 && equalHashes(root1, root2);
  if (!allHashes([root1, root2], proof)) return false;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Hash;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = hashChildren(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && equalHashes(fr, root1) && equalHashes(sr, root2);
}

/** A NodeReader over leaf hashes in memory, for tests and small trees. */
export function memoryNodeReader(leafHashes: readonly Hash[]): NodeReader {
  return async (level, index) => {
    const width = 2 ** level;
    const start = index * width;
    if (start + width > leafHashes.length) throw new RangeError(`node ${level}/${index} is beyond the tree`);
    return mth(leafHashes, start, start + width);
  };
}
