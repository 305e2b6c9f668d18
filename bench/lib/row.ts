import { explain } from "../explanations.js";
import { type Goal, met, type Row } from "./results.js";

export interface RowInput {
  id: string;
  group: string;
  title: string;
  unit: string;
  subject: number;
  baseline: number;
  baselineName: string;
  goal: Goal;
  note?: string;
}

/** A row with its ratio (subject ÷ baseline) and verdict; a missed goal gets its known reason. */
export function row(input: RowInput): Row {
  const ratio = input.subject / input.baseline;
  const verdict = met(input.goal, input.subject, ratio);
  const reason = verdict === false ? explain(input.id) : undefined;
  const note = [reason, input.note].filter(Boolean).join(" ") || undefined;
  return { ...input, ratio, met: verdict, ...(note ? { note } : {}) };
}

export const ratioGoal = (op: "<=" | ">=", target: number): Goal => ({ on: "ratio", op, target });
export const context = (note: string): Goal => ({ on: "none", note });
