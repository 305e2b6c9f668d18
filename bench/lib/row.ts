import { explain } from "../explanations.js";
import { type Goal, met, type Row } from "./results.js";

/** What a suite measures; the ratio, the verdict and the reason are derived from it. */
export type RowInput = Omit<Row, "ratio" | "met" | "note">;

/** A row with its ratio (subject ÷ baseline) and verdict; a missed goal gets its known reason. */
export function row(input: RowInput): Row {
  const ratio = input.subject / input.baseline;
  const verdict = met(input.goal, input.subject, ratio);
  const note = verdict === false ? (explain(input.id) ?? "not yet explained") : undefined;
  return { ...input, ratio, met: verdict, ...(note ? { note } : {}) };
}

/** The row again with its reason looked up afresh (after bench/explanations.ts changed). */
export function renote(old: Row): Row {
  const { note: _old, ...rest } = old;
  const note = old.met === false ? (explain(old.id) ?? "not yet explained") : undefined;
  return { ...rest, ...(note ? { note } : {}) };
}

export const ratioGoal = (op: "<=" | ">=", target: number): Goal => ({ on: "ratio", op, target });
export const context = (note: string): Goal => ({ on: "none", note });
