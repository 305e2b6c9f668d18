import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseCheckpoint } from "../../events/transparency/checkpoint.js";
import { ed25519RawPublicKey } from "../../events/transparency/ed25519.js";
import { NoteVerificationError } from "../../events/transparency/errors.js";
import { EMPTY_ROOT, equalHashes, type Hash, verifyConsistency } from "../../events/transparency/merkle.js";
import {
  COSIGNATURE_V1,
  cosignatureMessage,
  cosignaturePayload,
  keyId,
  parseNote,
  parseVerifierKey,
  signatureLine,
  strictBase64,
  verifierKey,
  verifyNote,
} from "../../events/transparency/note.js";

export interface TestWitness {
  /** Base URL; the submission prefix: POST `${url}/add-checkpoint`. */
  url: string;
  name: string;
  /** The witness's cosigner vkey (signature type 0x04), as a policy names it. */
  vkey: string;
  publicKey: Uint8Array;
  /** The size this witness last cosigned for an origin (0 when never). */
  sizeOf(origin: string): number;
  /** Every add-checkpoint answer's status, in order: what the log under test made of it. */
  statuses: number[];
  close(): Promise<void>;
}

export interface TestWitnessOptions {
  /** Verifier keys (type 0x01) of the logs it witnesses; the key name is the origin. */
  logs: string[];
  name?: string;
  /** Seconds since the epoch for the cosignature's timestamp. */
  now?: () => number;
  /** Awaited before each request is handled: a slow witness, or (never settling) a silent one. */
  hold?: () => Promise<void>;
}

interface Latest {
  size: number;
  root: Hash;
  /** The checkpoint as received, with this witness's cosignature appended. */
  note: string;
}

/**
 * A witness written from c2sp.org/tlog-witness, for tests: it keeps, per origin, the last
 * checkpoint it cosigned, and cosigns (cosignature/v1, Ed25519) only a checkpoint signed by the
 * log's key and consistent with it. The check and the update happen in one synchronous step, so
 * two racing requests cannot roll it back (the spec's atomicity requirement).
 */
export async function startTestWitness(options: TestWitnessOptions): Promise<TestWitness> {
  const name = options.name ?? "witness.test/w1";
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const { privateKey } = generateKeyPairSync("ed25519");
  const publicKey = ed25519RawPublicKey(privateKey);
  const cosignerKeyId = keyId(name, publicKey, COSIGNATURE_V1);
  const logs = new Map(options.logs.map((v) => [parseVerifierKey(v).name, v]));
  const latest = new Map<string, Latest>();
  const statuses: number[] = [];

  function answer(res: ServerResponse, status: number, body: string, type = "text/plain; charset=utf-8") {
    statuses.push(status);
    res.writeHead(status, { "content-type": type });
    res.end(body);
  }

  function addCheckpoint(body: string, res: ServerResponse) {
    const blank = body.indexOf("\n\n");
    if (blank < 0) return answer(res, 400, "no blank line before the checkpoint\n");
    const head = body.slice(0, blank).split("\n");
    const note = body.slice(blank + 2);
    const oldMatch = /^old (0|[1-9][0-9]*)$/.exec(head[0] ?? "");
    if (!oldMatch) return answer(res, 400, "the first line is `old <size>`\n");
    const oldSize = Number(oldMatch[1]);
    const proofLines = head.slice(1);
    if (proofLines.length > 63) return answer(res, 400, "more than 63 proof lines\n");
    const proof: Hash[] = [];
    for (const line of proofLines) {
      const hash = strictBase64(line);
      if (hash?.length !== 32) return answer(res, 400, "a proof line is base64 of 32 bytes\n");
      proof.push(hash);
    }
    let checkpoint: ReturnType<typeof parseCheckpoint>;
    try {
      checkpoint = parseCheckpoint(parseNote(note).text);
    } catch {
      return answer(res, 400, "the checkpoint is not a signed checkpoint note\n");
    }
    const logKey = logs.get(checkpoint.origin);
    if (!logKey) return answer(res, 404, "unknown log origin\n");
    let text: string;
    try {
      text = verifyNote(note, [logKey]).text;
    } catch (e) {
      if (e instanceof NoteVerificationError) return answer(res, 403, `${e.message}\n`);
      throw e;
    }
    if (oldSize > checkpoint.size) return answer(res, 400, "old size is beyond the checkpoint\n");
    const known = latest.get(checkpoint.origin);
    const knownSize = known?.size ?? 0;
    if (oldSize !== knownSize) return answer(res, 409, `${knownSize}\n`, "text/x.tlog.size");
    if (checkpoint.size === 0 && !equalHashes(checkpoint.root, EMPTY_ROOT)) {
      return answer(res, 422, "a tree of size 0 has the empty root\n");
    }
    if (oldSize === 0) {
      if (proof.length > 0) return answer(res, 422, "no proof from the empty tree\n");
    } else if (oldSize === checkpoint.size) {
      if (proof.length > 0 || !equalHashes(checkpoint.root, (known as Latest).root)) {
        return answer(res, 422, "same size, different root\n");
      }
    } else if (!verifyConsistency(oldSize, checkpoint.size, proof, (known as Latest).root, checkpoint.root)) {
      return answer(res, 422, "the consistency proof does not verify\n");
    }
    const time = now();
    const signature = new Uint8Array(sign(null, cosignatureMessage(text, time), privateKey));
    const line = signatureLine(name, cosignerKeyId, cosignaturePayload(time, signature));
    latest.set(checkpoint.origin, { size: checkpoint.size, root: checkpoint.root, note: `${note}${line}` });
    answer(res, 200, line);
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: string) {
    const path = new URL(req.url ?? "/", "http://witness").pathname;
    if (path === "/add-checkpoint") {
      if (req.method !== "POST") return answer(res, 405, "POST only\n");
      return addCheckpoint(body, res);
    }
    // The monitoring API: GET /<hex SHA-256 of the origin>/checkpoint.
    const m = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path);
    if (m && req.method === "GET") {
      for (const [origin, state] of latest) {
        if (createHash("sha256").update(origin).digest("hex") === m[1]) {
          return answer(res, 200, state.note);
        }
      }
    }
    return answer(res, 404, "not found\n");
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      await options.hold?.();
      try {
        handle(req, res, Buffer.concat(chunks).toString("utf8"));
      } catch (e) {
        answer(res, 500, `${(e as Error).message}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    name,
    vkey: verifierKey(name, publicKey, COSIGNATURE_V1),
    publicKey,
    sizeOf: (origin) => latest.get(origin)?.size ?? 0,
    statuses,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
