import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  consistencyProof,
  EMPTY_ROOT,
  hashLeaf,
  inclusionProof,
  memoryNodeReader,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from "../../events/transparency/merkle.js";

// transparency-dev/merkle's vectors (see the README beside them): correctness shown against work
// no one here wrote.
const dir = join(import.meta.dirname, "../fixtures/transparency/merkle");

function vectorFiles(kind: string): string[] {
  return readdirSync(join(dir, kind), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".json"))
    .map((e) => join(e.parentPath, e.name));
}

const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
const hex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const proofOf = (p: string[] | null) => (p ?? []).map(b64);

interface InclusionVector {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}
interface ConsistencyVector {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
  desc: string;
  wantErr: boolean;
}

const load = <T>(f: string): T => JSON.parse(readFileSync(f, "utf8")) as T;
const inclusion = vectorFiles("inclusion").map(
  (f) => [f.slice(dir.length + 1), load<InclusionVector>(f)] as const,
);
const consistency = vectorFiles("consistency").map(
  (f) => [f.slice(dir.length + 1), load<ConsistencyVector>(f)] as const,
);

const reference = load<{ leafInputsHex: string[]; rootHashesHex: string[] }>(
  join(dir, "reference-tree.json"),
);
const referenceLeaves = reference.leafInputsHex.map((h) => hashLeaf(hex(h)));

describe("transparency-dev/merkle inclusion vectors", () => {
  it("are all on disk (the copy is complete)", () => {
    expect(inclusion.length).toBe(98);
    expect(inclusion.some(([, v]) => v.wantErr)).toBe(true);
    expect(inclusion.some(([, v]) => !v.wantErr)).toBe(true);
  });
  it.each(inclusion)("%s", (_name, v) => {
    const ok = verifyInclusion(b64(v.leafHash), v.leafIdx, v.treeSize, proofOf(v.proof), b64(v.root));
    expect(ok).toBe(!v.wantErr);
  });
});

describe("transparency-dev/merkle consistency vectors", () => {
  it("are all on disk, wantErr cases included", () => {
    expect(consistency.length).toBe(98);
    expect(consistency.some(([, v]) => v.wantErr && v.size1 === 0)).toBe(true);
    expect(
      consistency.some(([, v]) => v.wantErr && v.size1 === v.size2 && (v.proof ?? []).length === 0),
    ).toBe(true);
  });
  it.each(consistency)("%s", (_name, v) => {
    const ok = verifyConsistency(v.size1, v.size2, proofOf(v.proof), b64(v.root1), b64(v.root2));
    expect(ok).toBe(!v.wantErr);
  });
});

describe("the prover, against the vectors' reference tree", () => {
  it("computes the reference roots of every prefix", () => {
    reference.rootHashesHex.forEach((root, size) => {
      expect(Buffer.from(rootOf(referenceLeaves.slice(0, size))).toString("hex")).toBe(root);
    });
    expect(Buffer.from(EMPTY_ROOT).toString("hex")).toBe(reference.rootHashesHex[0]);
  });

  it.each(inclusion.filter(([, v]) => !v.wantErr && v.treeSize <= 8))(
    "builds the happy-path inclusion proof %s",
    async (_name, v) => {
      const node = memoryNodeReader(referenceLeaves.slice(0, v.treeSize));
      const proof = await inclusionProof(v.leafIdx, v.treeSize, node);
      expect(proof.map((h) => Buffer.from(h).toString("base64"))).toEqual(v.proof ?? []);
    },
  );

  it.each(consistency.filter(([, v]) => !v.wantErr && v.size1 > 0 && v.size2 <= 8))(
    "builds the happy-path consistency proof %s",
    async (_name, v) => {
      const node = memoryNodeReader(referenceLeaves.slice(0, v.size2));
      const proof = await consistencyProof(v.size1, v.size2, node);
      expect(proof.map((h) => Buffer.from(h).toString("base64"))).toEqual(v.proof ?? []);
    },
  );
});
