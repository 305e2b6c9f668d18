import type { AssessmentRow, DenialRow } from "./summary.js";

/**
 * The three lists the summary shows in full — live denials, the assessments of denials, the
 * retracted ids — grow with a contested incident, not with its length. Each is kept as a log:
 * its newest rows inline in the fold state (a fixed budget), its older rows sealed into
 * numbered pieces that are stored beside the view and never change once written. A piece
 * never changes because nothing is ever edited in place: a retraction of a sealed row is
 * recorded in the retracted log and filtered out when the summary is assembled. So a snapshot
 * at version N names exactly the pieces it had (0 … n−1 of each log), and a past view is exact.
 */
export type SpillLog = "denials" | "assessments" | "retracted";
export const SPILL_LOGS: readonly SpillLog[] = ["denials", "assessments", "retracted"];

export interface SpillRows {
  denials: DenialRow[];
  assessments: AssessmentRow[];
  retracted: string[];
}

/** Rows `index * …` of a log, oldest first: sealed once, written once, read by every summary of it. */
export interface SpillPiece<L extends SpillLog = SpillLog> {
  log: L;
  index: number;
  rows: SpillRows[L];
}

/**
 * A log's inline tail is sealed once it passes twice this many characters of JSON: the oldest
 * rows making up at least this much become the next piece. So a tail stays under 2× this and a
 * piece under this plus one row (a denial row is at most ≈ 5,000 characters: claim 2,000,
 * quote clipped to 1,000, counter-claim) — both far below DynamoDB's 400 KB item.
 */
export const PIECE_CHARS = 8_000;

/** Bits of the filter of sealed retracted ids (4 KB): a few % false positives at 5,000 ids. */
const FILTER_BITS = 32_768;
const FILTER_HASHES = 3;

export interface Spilled {
  /** Pieces sealed per log: pieces 0 … n−1, oldest rows first. */
  pieces: Record<SpillLog, number>;
  /** Denials in sealed pieces that are not retracted: with the inline ones, whether the incident is contested. */
  liveDenials: number;
  /**
   * A Bloom filter (base64) of the retracted ids in sealed pieces. A retraction of an id it does
   * not hold — nearly every one — needs no read to know it is not a repeat; one it may hold
   * reads the sealed retracted pieces (a rare path: a repeated retraction, or a false positive).
   */
  retractedFilter: string;
}

export function emptySpilled(): Spilled {
  return {
    pieces: { denials: 0, assessments: 0, retracted: 0 },
    liveDenials: 0,
    retractedFilter: encode(new Uint8Array(FILTER_BITS / 8)),
  };
}

/** The pieces a state's summary needs and `held` does not have, as (log, index) pairs. */
export function piecesNeeded(
  spilled: Spilled | null | undefined,
  held: readonly SpillPiece[] = [],
): { log: SpillLog; index: number }[] {
  if (!spilled) return [];
  const out: { log: SpillLog; index: number }[] = [];
  for (const log of SPILL_LOGS)
    for (let index = 0; index < spilled.pieces[log]; index++)
      if (!held.some((p) => p.log === log && p.index === index)) out.push({ log, index });
  return out;
}

/**
 * The JSON length of each tail row met. A row is never changed once in a tail (it leaves whole,
 * by a seal or a retraction), so a fold that appends to a tail measures each row once, not
 * the whole tail at every append.
 */
const rowChars = new WeakMap<object, number>();

function charsOf(row: unknown): number {
  if (typeof row !== "object" || row === null) return JSON.stringify(row).length;
  let chars = rowChars.get(row);
  if (chars === undefined) {
    chars = JSON.stringify(row).length;
    rowChars.set(row, chars);
  }
  return chars;
}

/** Takes the oldest rows of `tail` (in place) once it is over budget; null while it fits. */
export function sealOldest<T>(tail: T[]): T[] | null {
  // The length of JSON.stringify(tail): its rows, a comma between each two, and the brackets.
  let total = 2 + Math.max(0, tail.length - 1);
  for (const row of tail) total += charsOf(row);
  if (total <= 2 * PIECE_CHARS) return null;
  let taken = 0;
  let count = 0;
  while (count < tail.length && taken < PIECE_CHARS) taken += charsOf(tail[count++]) + 1;
  return tail.splice(0, count);
}

function hashes(id: string): number[] {
  // FNV-1a and a second, differently seeded FNV, combined by double hashing.
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x5bd1e995) >>> 0;
  }
  b = ((b ^ (b >>> 15)) | 1) >>> 0;
  return Array.from({ length: FILTER_HASHES }, (_, k) => ((a + k * b) % FILTER_BITS) >>> 0);
}

export function filterAdd(spilled: Spilled, ids: readonly string[]): void {
  const bits = decode(spilled.retractedFilter);
  for (const id of ids)
    for (const h of hashes(id)) bits[h >>> 3] = (bits[h >>> 3] as number) | (1 << (h & 7));
  spilled.retractedFilter = encode(bits);
}

export function filterMayHold(spilled: Spilled, id: string): boolean {
  const bits = decode(spilled.retractedFilter);
  return hashes(id).every((h) => ((bits[h >>> 3] as number) & (1 << (h & 7))) !== 0);
}

function encode(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

function decode(base64: string): Uint8Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
