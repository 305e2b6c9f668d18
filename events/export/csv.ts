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
 * A finite number as plain decimal, as the codebook's "Conventions" write numbers: the digits
 * of its shortest round-trip form (what `String` gives), with the point moved instead of an
 * exponent (`1e-7` is 0.0000001, `1e21` is 1 and 21 zeros), so that it reads back as the same
 * number and no digit is added or lost. `-0` is 0.
 */
export function decimal(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`a CSV number must be finite, got ${n}`);
  const text = String(n);
  const e = text.indexOf("e");
  if (e === -1) return text;
  const sign = text.startsWith("-") ? "-" : "";
  const [whole = "", fraction = ""] = text.slice(sign.length, e).split(".");
  const digits = whole + fraction;
  // Where the point falls within `digits`: after `whole`, moved by the exponent.
  const point = whole.length + Number(text.slice(e + 1));
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * One cell's text. Numbers and booleans come from the archive's own arithmetic, never from a
 * report, so they are written as they are (a negative longitude stays a number), numbers in
 * plain decimal; text gets the formula guard. null is an empty cell.
 */
export function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value === "number") return decimal(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

export function csvRecord(cells: readonly Cell[]): string {
  return `${cells.map(csvCell).join(",")}${CSV_NEWLINE}`;
}
