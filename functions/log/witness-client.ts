import { consistencyProof, type Hash } from "../../events/transparency/merkle.js";
import {
  COSIGNATURE_V1,
  parseNote,
  parseVerifierKey,
  type VerifierKey,
  verifyCosignature,
} from "../../events/transparency/note.js";
import type { Logger } from "../logger.js";
import type { LogStore, StoredCheckpoint } from "./log-store.js";
import type { LogTiles } from "./log-tiles.js";

/** One witness: its cosigner key (vkey of type 0x04) and its submission prefix. */
export interface WitnessConfig {
  key: VerifierKey;
  url: string;
}

/**
 * LEDGER_WITNESSES: witnesses separated by newlines or `;`, each `<vkey> <submission URL>`, e.g.
 * `witness.example/w1+1a2b3c4d+BCs… https://witness.example/w1`.
 */
export function parseWitnesses(text: string | undefined): WitnessConfig[] {
  if (!text?.trim()) return [];
  return text
    .split(/[;\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const [vkey, url, ...rest] = entry.split(/\s+/);
      if (!vkey || !url || rest.length > 0)
        throw new Error(`LEDGER_WITNESSES: "${entry}" is not "<vkey> <url>"`);
      const key = parseVerifierKey(vkey);
      if (key.type !== COSIGNATURE_V1)
        throw new Error(`LEDGER_WITNESSES: ${key.name}'s key is not a cosignature/v1 (0x04) key`);
      return { key, url: url.replace(/\/$/, "") };
    });
}

export type ProofFrom = (oldSize: number) => Promise<Hash[]>;

/**
 * c2sp.org/tlog-witness `add-checkpoint`. Each witness is told the size it last cosigned (what
 * this client remembers, 0 at first); a 409 answers with the witness's real size, and the
 * checkpoint is sent again with a proof from there. Witnesses are asked in parallel; one that
 * fails or refuses (403/404/422) is logged and skipped: a cosignature is extra assurance, never a
 * reason to stop the log.
 */
export class WitnessClient {
  private readonly known = new Map<string, number>();

  constructor(
    private readonly witnesses: readonly WitnessConfig[],
    private readonly log: Logger,
    private readonly timeoutMs = 5_000,
  ) {}

  get size(): number {
    return this.witnesses.length;
  }

  get all(): readonly WitnessConfig[] {
    return this.witnesses;
  }

  /** The verified cosignature lines the witnesses returned for this signed checkpoint. */
  async cosign(note: string, size: number, proofFrom: ProofFrom): Promise<string[]> {
    const answers = await Promise.all(this.witnesses.map((w) => this.ask(w, note, size, proofFrom)));
    return answers.flat();
  }

  /** One witness's verified cosignature lines for this signed checkpoint ([] if none). */
  async ask(witness: WitnessConfig, note: string, size: number, proofFrom: ProofFrom): Promise<string[]> {
    const body = parseNote(note).text;
    let old = Math.min(this.known.get(witness.url) ?? 0, size);
    for (let attempt = 0; attempt < 3; attempt++) {
      const proof = await proofFrom(old);
      const request = `old ${old}\n${proof.map((h) => `${Buffer.from(h).toString("base64")}\n`).join("")}\n${note}`;
      let response: Response;
      try {
        response = await fetch(`${witness.url}/add-checkpoint`, {
          method: "POST",
          body: request,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (error) {
        this.log.error("witness unreachable", { witness: witness.key.name, error: String(error) });
        return [];
      }
      const text = await response.text();
      if (response.status === 409) {
        const theirs = /^(0|[1-9][0-9]*)\n?$/.exec(text);
        const their = theirs ? Number(theirs[1]) : Number.NaN;
        if (!Number.isSafeInteger(their) || their > size || their === old) {
          this.log.error("witness holds a size this log cannot prove from", {
            witness: witness.key.name,
            answer: text.slice(0, 100),
            size,
          });
          return [];
        }
        old = their;
        continue;
      }
      if (response.status !== 200) {
        this.log.error("witness refused the checkpoint", {
          witness: witness.key.name,
          status: response.status,
          answer: text.slice(0, 200),
          size,
          old,
        });
        return [];
      }
      this.known.set(witness.url, size);
      return this.verifiedLines(witness, body, text);
    }
    return [];
  }

  /** Only lines that are this witness's valid cosignatures over this checkpoint are kept. */
  private verifiedLines(witness: WitnessConfig, body: string, answer: string): string[] {
    const kept: string[] = [];
    for (const line of answer.split("\n")) {
      const m = /^— (\S+) (\S+)$/u.exec(line);
      if (!m || m[1] !== witness.key.name) continue;
      const bytes = Buffer.from(m[2] as string, "base64");
      if (bytes.length < 5 || !bytes.subarray(0, 4).equals(Buffer.from(witness.key.keyId))) continue;
      if (verifyCosignature(body, new Uint8Array(bytes.subarray(4)), witness.key.publicKey))
        kept.push(`${line}\n`);
      else
        this.log.error("witness returned a cosignature that does not verify", { witness: witness.key.name });
    }
    return kept;
  }
}

/**
 * Sends each new checkpoint to the witnesses outside the sequencer's pass, so that signing never
 * waits on them: one loop per witness, each with its own timeout (WitnessClient's), at most one
 * request in flight per witness. A checkpoint offered while a witness is busy replaces any other
 * still waiting for it (latest wins: a witness that cosigns size N vouches for every size below).
 * Each witness's cosignature lines are stored as they come, on the very checkpoint they sign
 * (c2sp.org/tlog-cosignature: a cosignature covers one checkpoint body, never another size's).
 */
export class WitnessCosigner {
  private readonly next = new Map<string, StoredCheckpoint>();
  private readonly busy = new Map<string, Promise<void>>();

  constructor(
    private readonly client: WitnessClient,
    private readonly store: LogStore,
    private readonly tiles: LogTiles,
    private readonly log: Logger,
  ) {}

  /** Queues a stored checkpoint for every witness; returns at once. */
  offer(checkpoint: StoredCheckpoint): void {
    for (const witness of this.client.all) {
      const queued = this.next.get(witness.url);
      if (!queued || queued.size < checkpoint.size) this.next.set(witness.url, checkpoint);
      if (!this.busy.has(witness.url)) {
        const loop = this.serve(witness).finally(() => this.busy.delete(witness.url));
        this.busy.set(witness.url, loop);
      }
    }
  }

  /** Resolves when every witness has answered (or timed out on) everything offered so far. */
  async idle(): Promise<void> {
    while (this.busy.size > 0) await Promise.all(this.busy.values());
  }

  private async serve(witness: WitnessConfig): Promise<void> {
    for (let checkpoint = this.take(witness); checkpoint; checkpoint = this.take(witness)) {
      try {
        const node = this.tiles.nodeReader(checkpoint.size);
        const size = checkpoint.size;
        const lines = await this.client.ask(witness, checkpoint.text, size, (old) =>
          old === 0 || old === size ? Promise.resolve([]) : consistencyProof(old, size, node),
        );
        if (lines.length > 0) await this.store.addCosignatures(size, checkpoint.root, lines);
      } catch (error) {
        this.log.error("witness cosigning failed", { witness: witness.key.name, error: String(error) });
      }
    }
  }

  private take(witness: WitnessConfig): StoredCheckpoint | undefined {
    const checkpoint = this.next.get(witness.url);
    this.next.delete(witness.url);
    return checkpoint;
  }
}
