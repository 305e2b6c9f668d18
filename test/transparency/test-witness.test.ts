import { generateKeyPairSync, sign } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatCheckpoint } from "../../events/transparency/checkpoint.js";
import { ed25519RawPublicKey } from "../../events/transparency/ed25519.js";
import {
  consistencyProof,
  EMPTY_ROOT,
  type Hash,
  hashLeaf,
  memoryNodeReader,
  rootOf,
} from "../../events/transparency/merkle.js";
import {
  keyId,
  parseVerifierKey,
  signNote,
  verifiedCosignatures,
  verifierKey,
} from "../../events/transparency/note.js";
import { startTestWitness, type TestWitness } from "../support/test-witness.js";

const ORIGIN = "log.test/ledger";

function logKey(name = ORIGIN) {
  const { privateKey } = generateKeyPairSync("ed25519");
  const publicKey = ed25519RawPublicKey(privateKey);
  return {
    vkey: verifierKey(name, publicKey),
    signer: {
      name,
      keyId: keyId(name, publicKey),
      sign: async (m: Uint8Array) => new Uint8Array(sign(null, m, privateKey)),
    },
  };
}

const leaves = Array.from({ length: 20 }, (_, i) => hashLeaf(new TextEncoder().encode(`e${i}`)));
const b64 = (h: Uint8Array) => Buffer.from(h).toString("base64");

async function checkpointNote(key: ReturnType<typeof logKey>, size: number, root?: Hash, origin = ORIGIN) {
  return signNote(formatCheckpoint({ origin, size, root: root ?? rootOf(leaves.slice(0, size)) }), [
    key.signer,
  ]);
}

async function add(w: TestWitness, old: number, proof: Hash[], note: string) {
  const body = `old ${old}\n${proof.map((p) => `${b64(p)}\n`).join("")}\n${note}`;
  const r = await fetch(`${w.url}/add-checkpoint`, { method: "POST", body });
  return { status: r.status, type: r.headers.get("content-type"), text: await r.text() };
}

const proofBetween = (a: number, b: number) => consistencyProof(a, b, memoryNodeReader(leaves.slice(0, b)));

describe("the test witness (c2sp.org/tlog-witness add-checkpoint)", () => {
  const log = logKey();
  let witness: TestWitness;
  beforeAll(async () => {
    witness = await startTestWitness({ logs: [log.vkey], now: () => 1_800_000_000 });
  });
  afterAll(() => witness.close());

  it("given a first checkpoint with old 0, then it answers 200 with a cosignature/v1 line its vkey verifies", async () => {
    const note = await checkpointNote(log, 5);
    const r = await add(witness, 0, [], note);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^— witness\.test\/w1 \S+\n$/);
    const cosigs = verifiedCosignatures(`${note}${r.text}`, [parseVerifierKey(witness.vkey)]);
    expect(cosigs).toEqual(new Map([["witness.test/w1", 1_800_000_000]]));
    expect(witness.sizeOf(ORIGIN)).toBe(5);
  });

  it("given a consistent larger checkpoint with its proof, then it cosigns and remembers the size", async () => {
    const r = await add(witness, 5, await proofBetween(5, 12), await checkpointNote(log, 12));
    expect(r.status).toBe(200);
    expect(witness.sizeOf(ORIGIN)).toBe(12);
  });

  it("given a stale old size, then 409 with its known size as text/x.tlog.size", async () => {
    const r = await add(witness, 5, await proofBetween(5, 15), await checkpointNote(log, 15));
    expect(r.status).toBe(409);
    expect(r.type).toBe("text/x.tlog.size");
    expect(r.text).toBe("12\n");
  });

  it("given a proof that does not verify, then 422 and it keeps its size", async () => {
    const proof = await proofBetween(12, 15);
    proof[0] = hashLeaf(new Uint8Array([9]));
    expect((await add(witness, 12, proof, await checkpointNote(log, 15))).status).toBe(422);
    // A forked tree at a larger size: its honest-looking proof is against another history.
    const forked = [...leaves];
    forked[0] = hashLeaf(new Uint8Array([1]));
    const forkedProof = await consistencyProof(12, 15, memoryNodeReader(forked.slice(0, 15)));
    const forkedNote = await checkpointNote(log, 15, rootOf(forked.slice(0, 15)));
    expect((await add(witness, 12, forkedProof, forkedNote)).status).toBe(422);
    // The same size with another root.
    expect(
      (await add(witness, 12, [], await checkpointNote(log, 12, rootOf(forked.slice(0, 12))))).status,
    ).toBe(422);
    expect(witness.sizeOf(ORIGIN)).toBe(12);
  });

  it("given an unknown origin, a checkpoint no trusted key signed, or a bad signature, then 404 / 403", async () => {
    const stranger = logKey("other.test/log");
    expect(
      (await add(witness, 0, [], await checkpointNote(stranger, 3, undefined, "other.test/log"))).status,
    ).toBe(404);
    const impostor = logKey(ORIGIN);
    expect(
      (await add(witness, 12, await proofBetween(12, 15), await checkpointNote(impostor, 15))).status,
    ).toBe(403);
    const note = await checkpointNote(log, 15);
    const tampered = note.replace(/ (\S+)\n$/, (_m, sig: string) => {
      const bytes = Buffer.from(sig, "base64");
      bytes[10] = (bytes[10] as number) ^ 1;
      return ` ${bytes.toString("base64")}\n`;
    });
    expect(tampered).not.toBe(note);
    expect((await add(witness, 12, await proofBetween(12, 15), tampered)).status).toBe(403);
  });

  it("given an old size beyond the checkpoint or a malformed body, then 400; a size-0 checkpoint must have the empty root", async () => {
    expect((await add(witness, 13, [], await checkpointNote(log, 12))).status).toBe(400);
    const r = await fetch(`${witness.url}/add-checkpoint`, { method: "POST", body: "hello" });
    expect(r.status).toBe(400);
    const fresh = await startTestWitness({ logs: [log.vkey] });
    try {
      expect((await add(fresh, 0, [], await checkpointNote(log, 0, leaves[0]))).status).toBe(422);
      expect((await add(fresh, 0, [], await checkpointNote(log, 0, EMPTY_ROOT))).status).toBe(200);
      expect((await add(fresh, 0, [leaves[0] as Hash], await checkpointNote(log, 4))).status).toBe(422);
    } finally {
      await fresh.close();
    }
  });
});
