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
  // A character the chunk before began and did not end: it ends (or breaks) in this one.
  let carried: Buffer = Buffer.alloc(0);
  for await (const read of createReadStream(file) as AsyncIterable<Buffer>) {
    // UTF-16 without a byte-order mark decodes as UTF-8 when its text is ASCII, a NUL byte
    // between every two characters: no text file holds one (nor may an event).
    const nul = read.indexOf(0);
    if (nul >= 0) {
      let at = line;
      for (let i = 0; i < nul; i += 1) if (read[i] === 0x0a) at += 1;
      throw new ImportFileError(
        `the file is not UTF-8 text: byte ${offset + nul} (line ${at}) is a NUL byte; if it is UTF-16 (a spreadsheet's "Unicode text"), convert it first, e.g. iconv -f UTF-16LE -t UTF-8`,
      );
    }
    try {
      decoder.decode(read, { stream: true });
    } catch {
      // Looked at with the bytes carried over, so that a sequence broken across the boundary
      // is found where it begins; offsets and lines count from the carried bytes' start.
      const chunk = Buffer.concat([carried, read]);
      offset -= carried.length;
      for (const byte of carried) if (byte === 0x0a) line -= 1;
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
      const bad = firstBadByte(chunk, good);
      for (let i = 0; i < bad; i += 1) if (chunk[i] === 0x0a) line += 1;
      const utf16 =
        offset === 0 &&
        ((chunk[0] === 0xff && chunk[1] === 0xfe) || (chunk[0] === 0xfe && chunk[1] === 0xff));
      throw new ImportFileError(
        `the file is not UTF-8: byte ${offset + bad} (line ${line}) is not valid UTF-8; ` +
          (utf16
            ? "it looks like UTF-16: convert it first, e.g. iconv -f UTF-16 -t UTF-8"
            : "convert it first, e.g. iconv -f WINDOWS-1252 -t UTF-8"),
      );
    }
    for (const byte of read) if (byte === 0x0a) line += 1;
    offset += read.length;
    carried = unfinished(read);
  }
  try {
    decoder.decode();
  } catch {
    throw new ImportFileError(
      `the file is not UTF-8: it ends inside a multi-byte character (byte ${offset})`,
    );
  }
}

/**
 * Where the invalid sequence begins, given that the first `good` bytes decode (as a stream): a
 * lead byte whose sequence the byte at `good` broke off (Latin-1's "é" before a space), else
 * the byte at `good` itself.
 */
function firstBadByte(chunk: Buffer, good: number): number {
  for (let at = good - 1; at >= Math.max(0, good - 3); at -= 1) {
    const byte = chunk[at] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return at + length > good ? at : good;
  }
  return good;
}

/** The bytes of a multi-byte character a chunk begins at its end and does not finish. */
function unfinished(chunk: Buffer): Buffer {
  const lead = firstBadByte(chunk, chunk.length);
  return lead < chunk.length ? chunk.subarray(lead) : Buffer.alloc(0);
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
 * error row. A quote inside a field that does not begin with one (`Speaker "Bob" B`, `"a"b`) is
 * text, as spreadsheets write it. A record csv-parse cannot read (a quote opened and never
 * closed, which swallows the rest of the file) is an error row where it began, after the rows
 * before it: those are imported, and the report says which lines were not.
 */
export async function csvRows(file: string): Promise<CsvRows> {
  const input = createReadStream(file);
  let read = 0;
  input.on("data", (chunk) => {
    read += chunk.length;
  });
  const unread: { code?: string; lines?: number; message: string; blank: number }[] = [];
  const parser = input.pipe(
    parse({
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      info: true,
      // The unread record's own text, to tell the blank lines before it from where it begins.
      raw: true,
      trim: false,
      skip_records_with_error: true,
      on_skip: (error, raw) => {
        const blank = /^(?:\r\n|\r|\n)*/.exec(raw ?? "")?.[0].match(/\r\n|\r|\n/g)?.length ?? 0;
        unread.push({
          ...(error as { code?: string; lines?: number }),
          message: error?.message ?? "unreadable",
          blank,
        });
      },
    }),
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
  let ended = first.value.info.lines;
  async function* rows() {
    let row = 0;
    // A record skipped as unreadable: an error row starting after the last record read.
    const skipped = function* (before: number) {
      while (unread.length > 0 && (unread[0]?.lines ?? 0) < before) {
        const error = unread.shift() as (typeof unread)[number];
        row += 1;
        const line = ended + 1 + error.blank;
        yield {
          row,
          line,
          fields: {},
          error:
            error.code === "CSV_QUOTE_NOT_CLOSED"
              ? `a quoted field opened on line ${line} is never closed: lines ${line}–${error.lines ?? "end"} were read as one field and not imported; close the quote and import again`
              : `cannot be read as CSV: ${error.message}`,
        };
      }
    };
    for (;;) {
      const item = await next();
      if (item.done) {
        yield* skipped(Number.POSITIVE_INFINITY);
        return;
      }
      const { record, info } = item.value;
      yield* skipped(info.lines);
      row += 1;
      ended = info.lines;
      const line = lines.startOf(record, info.lines);
      const fields: Record<string, string> = {};
      header.forEach((name, i) => {
        Object.defineProperty(fields, name, { value: record[i] ?? "", enumerable: true, writable: true });
      });
      if (record.length !== header.length) {
        // A quote left open in a field runs on to the next quote: the rows between become text.
        // Counted in its fields, not from the parser's line count, which CRLF files end a line later.
        const breaks = record.reduce((n, field) => n + (field.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
        const last = line + breaks;
        const spread =
          breaks > 0
            ? `; it runs from line ${line} to line ${last}: if a quote (") opened in one of its fields was meant to close on line ${line}, the rows after it up to line ${last} were read into this row and not imported either`
            : "";
        yield {
          row,
          line,
          fields,
          error: `has ${record.length} fields; the header has ${header.length}${spread}`,
        };
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
