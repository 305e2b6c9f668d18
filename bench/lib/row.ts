import { type Goal, met, type Row } from "./results.js";

/** What a suite measures; the ratio and the verdict are derived from it. */
export type RowInput = Omit<Row, "ratio" | "met">;

/** A row with its ratio (subject ÷ baseline) and verdict. */
export function row(input: RowInput): Row {
  const ratio = input.subject / input.baseline;
  return { ...input, ratio, met: met(input.goal, input.subject, ratio) };
}

export const ratioGoal = (op: "<=" | ">=", target: number): Goal => ({ on: "ratio", op, target });
export const valueGoal = (op: "<=" | ">=", target: number): Goal => ({ on: "value", op, target });
export const context = (note: string): Goal => ({ on: "none", note });
