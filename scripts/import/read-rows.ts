import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { parse } from "csv-parse";
import type { SourceRow } from "../../events/import/rows.js";

/** The file cannot be read as a whole (not UTF-8, a CSV syntax error): the import stops. */
export class ImportFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportFileError";
  }
}

/**
 * Checks that the whole file is UTF-8 before anything is stored, streaming (a decoder that
 * throws on the first invalid byte): an import must not store half a file and then stop.
 */
export async function checkUtf8(file: string): Promise<void> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let offset = 0;
  let line = 1;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    try {
      decoder.decode(chunk, { stream: true });
    } catch {
      // Find the first bad byte of this chunk for the message.
      let good = 0;
      for (let end = 1; end <= chunk.length; end += 1) {
        try {
          new TextDecoder("utf-8", { fatal: true }).decode(chunk.subarray(0, end), { stream: true });
          good = end;
        } catch {
          break;
        }
      }
      for (let i = 0; i < good; i += 1) if (chunk[i] === 0x0a) line += 1;
      throw new ImportFileError(
        `the file is not UTF-8: byte ${offset + good} (line ${line}) is not valid UTF-8; ` +
          "convert it first, e.g. iconv -f WINDOWS-1252 -t UTF-8",
      );
    }
    for (const byte of chunk) if (byte === 0x0a) line += 1;
    offset += chunk.length;
  }
  try {
    decoder.decode();
  } catch {
    throw new ImportFileError(
      `the file is not UTF-8: it ends inside a multi-byte character (byte ${offset})`,
    );
  }
}

export interface CsvRows {
  header: string[];
  rows: AsyncGenerator<
    SourceRow | { row: number; line: number; fields: Record<string, string>; error: string }
  >;
  /** Bytes of the file read so far (for progress). */
  bytesRead(): number;
}

/**
 * A CSV file's header and rows, streamed by csv-parse (a BOM is dropped, CRLF or LF, quoted
 * fields may hold newlines). A row with another number of fields than the header is given as an
 * error row; a syntax error that leaves the rest unreadable (an unclosed quote) stops the file.
 */
export async function csvRows(file: string): Promise<CsvRows> {
  const input = createReadStream(file);
  let read = 0;
  input.on("data", (chunk) => {
    read += chunk.length;
  });
  const parser = input.pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true, trim: false }),
  );
  const iterator = parser[Symbol.asyncIterator]() as AsyncIterator<{
    record: string[];
    info: { lines: number };
  }>;
  const next = async () => {
    try {
      return await iterator.next();
    } catch (error) {
      input.destroy();
      throw new ImportFileError(`the CSV cannot be read past this point: ${(error as Error).message}`);
    }
  };
  const first = await next();
  if (first.done) throw new ImportFileError("the file is empty: no header row");
  const header = first.value.record.map((h) => h.trim());
  const duplicate = header.find((h, i) => header.indexOf(h) !== i);
  if (duplicate !== undefined) throw new ImportFileError(`the header names the column "${duplicate}" twice`);
  const lines = lineCounter();
  lines.startOf(first.value.record, first.value.info.lines);
  async function* rows() {
    let row = 0;
    for (;;) {
      const item = await next();
      if (item.done) return;
      row += 1;
      const { record, info } = item.value;
      const line = lines.startOf(record, info.lines);
      const fields: Record<string, string> = {};
      header.forEach((name, i) => {
        Object.defineProperty(fields, name, { value: record[i] ?? "", enumerable: true, writable: true });
      });
      if (record.length !== header.length) {
        yield { row, line, fields, error: `has ${record.length} fields; the header has ${header.length}` };
      } else yield { row, line, fields };
    }
  }
  return { header, rows: rows(), bytesRead: () => read };
}

/** A line break as an editor counts it: CRLF, LF or a lone CR, each one. */
const BREAK = /\r\n|[\r\n]/g;
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

/**
 * The line each record starts on, from csv-parse's `info.lines`: the line a record ends on,
 * where every CR and every LF inside a quoted field counts as a line of its own, so a quoted
 * CRLF counts twice. The count so runs one ahead for each quoted CRLF read so far. A record
 * starts as many breaks above its end as its fields hold, whatever blank lines came before it.
 */
function lineCounter() {
  let ahead = 0;
  return {
    startOf(record: readonly string[], endLine: number): number {
      let breaks = 0;
      for (const field of record) {
        breaks += count(field, BREAK);
        ahead += count(field, /\r\n/g);
      }
      return endLine - ahead - breaks;
    },
  };
}

export interface NdjsonLine {
  row: number;
  line: number;
  text: string;
}

/** An NDJSON file's lines (blank ones skipped), streamed; a BOM before the first is dropped. */
export function ndjsonLines(file: string): { lines: AsyncGenerator<NdjsonLine>; bytesRead(): number } {
  const input = createReadStream(file, { encoding: "utf8" });
  let read = 0;
  input.on("data", (chunk) => {
    read += Buffer.byteLength(chunk as string);
  });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  async function* lines() {
    let line = 0;
    let row = 0;
    for await (const raw of reader) {
      line += 1;
      const text = line === 1 ? raw.replace(/^\uFEFF/, "") : raw;
      if (text.trim() === "") continue;
      row += 1;
      yield { row, line, text };
    }
  }
  return { lines: lines(), bytesRead: () => read };
}
