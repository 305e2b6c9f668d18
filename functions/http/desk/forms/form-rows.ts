/** The most rows a form of rows shows, however many are asked for. */
export const MAX_ROWS = 50;

/**
 * A form of repeated rows (the figures of a casualty report, the people of a victims list):
 * each field is named `prefix[i].part`, so a problem at `data.figures…` or `data.victims[i]…`
 * can be led back to its row. The form's "add" button posts `rows` one higher, storing nothing;
 * every row that holds something stays shown.
 */
export function formRows<Part extends string>(options: {
  prefix: string;
  parts: readonly Part[];
  /** Each part as a message names it: "Figure 2: from". */
  labels: Record<Part, string>;
  /** "Figure", "Person": row i is "<noun> i+1". */
  noun: string;
  /** Rows shown at first. */
  first: number;
}) {
  const { prefix, parts, labels, noun, first } = options;
  const pattern = new RegExp(`^${prefix}\\[(\\d+)\\]\\.(\\w+)$`);
  const name = (i: number, part: Part) => `${prefix}[${i}].${part}`;
  /** The row and part a field name is of, or null for a field of the rest of the form. */
  const parse = (field: string): { index: number; part: Part } | null => {
    const match = pattern.exec(field);
    const part = match?.[2] as Part | undefined;
    return match && part && parts.includes(part) ? { index: Number(match[1]), part } : null;
  };
  /** Rows to show: the posted count (grown by "add"), at least every row that holds something. */
  const count = (values: ReadonlyMap<string, string>): number => {
    let rows = Math.max(first, Number(values.get("rows")) || 0);
    for (const [field, text] of values) {
      const at = parse(field);
      if (at && text.trim() !== "") rows = Math.max(rows, at.index + 1);
    }
    return Math.min(rows, MAX_ROWS);
  };
  return {
    name,
    parse,
    count,
    /** Every row's fields, in page order. */
    fields: (values: ReadonlyMap<string, string>) =>
      Array.from({ length: count(values) }, (_, i) => parts.map((p) => name(i, p))).flat(),
    /** A row field's label ("Person 1: age"), else the rest of the form's. */
    label:
      (rest: (field: string) => string) =>
      (field: string): string => {
        const at = parse(field);
        return at ? `${noun} ${at.index + 1}: ${labels[at.part]}` : rest(field);
      },
    /** The row indexes, for rendering: `rows.each(values).map((i) => …)`. */
    each: (values: ReadonlyMap<string, string>) => Array.from({ length: count(values) }, (_, i) => i),
  };
}
