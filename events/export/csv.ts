/**
 * RFC 4180 text: fields separated by commas, records ended by CRLF, a field quoted (its quotes
 * doubled) only when it holds a comma, a quote, CR or LF. UTF-8 without a byte-order mark, so
 * that Python's csv, DuckDB and R read the header's first name as written.
 */
export const CSV_NEWLINE = "\r\n";

/**
 * A spreadsheet runs a cell that starts with = + - @ (and, in some, tab or CR) as a formula
 * (OWASP "CSV injection"). Such a text cell is written with a single quote in front, which
 * spreadsheets show as text and which a reader strips to get the value back (the codebook says so).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export type Cell = string | number | boolean | null;

/**
 * One cell's text. Numbers and booleans come from the archive's own arithmetic, never from a
 * report, so they are written as they are (a negative longitude stays a number); text gets
 * the formula guard. null is an empty cell.
 */
export function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`a CSV number must be finite, got ${value}`);
    return String(value);
  }
  if (typeof value === "boolean") return value ? "true" : "false";
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

export function csvRecord(cells: readonly Cell[]): string {
  return `${cells.map(csvCell).join(",")}${CSV_NEWLINE}`;
}
