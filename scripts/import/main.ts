import "../where-typed.js";
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { futureDates } from "../../events/future-dates.js";
import { ACLED_REQUIRED, acledRow } from "../../events/import/acled.js";
import { checkMapping, mappedRow } from "../../events/import/mapping.js";
import { type ExportChains, ndjsonRow } from "../../events/import/ndjson.js";
import { type MappedRow, missingColumns, type SourceRow } from "../../events/import/rows.js";
import { UCDP_REQUIRED, ucdpRow } from "../../events/import/ucdp.js";
import { jsonShapeProblem } from "../../events/json-shape.js";
import type { FieldError } from "../../events/validate.js";
import { parseEnvelope } from "../../events/validate.js";
import { startProgress } from "./progress.js";
import { checkUtf8, csvRows, ImportFileError, ndjsonLines } from "./read-rows.js";
import { ImportStoppedError, type RowEvents, Sender } from "./sender.js";

/**
 * `npm run import -- <file> [--format ndjson|csv|acled|ucdp] [--map mapping.json] [--dry-run]`:
 * streams a file's rows into events and appends them through the HTTP API (LEDGER_URL,
 * LEDGER_TOKEN). Exit 0: every row stored (or already there); 1: some rows failed (see
 * `<file>.import-errors.ndjson`); 2: the import could not run (usage, file, mapping, server).
 * `--dry-run` checks each event's fields as the API does and asks no server: what the API checks
 * against the store (an incident opened otherwise, an eventId another incident holds, a target
 * its incident lacks) is seen only by a real run.
 */
const USAGE =
  "usage: npm run import -- <file> [--format ndjson|csv|acled|ucdp] [--map mapping.json] [--dry-run]\n" +
  "       [--concurrency N] [--origin NAME (ndjson: the archive the export came from)]\n";
/** Requests in flight: see docs/explanation/finding.md ("Import") for the measurement behind it. */
const DEFAULT_CONCURRENCY = 8;
const FORMATS = ["ndjson", "csv", "acled", "ucdp"] as const;
type Format = (typeof FORMATS)[number];

class UsageError extends Error {}

function options() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: "string" },
      map: { type: "string" },
      "dry-run": { type: "boolean", default: false },
      concurrency: { type: "string" },
      origin: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError("give exactly one file to import");
  const format = (values.format ??
    (/\.(nd)?jsonl?$/i.test(file) ? "ndjson" : values.map ? "csv" : undefined)) as Format | undefined;
  if (!format) throw new UsageError("give --format (acled, ucdp, or csv with --map) for a CSV file");
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(", ")}`);
  if (format === "csv" && !values.map) throw new UsageError("--format csv needs --map mapping.json");
  const concurrency = Number(values.concurrency ?? DEFAULT_CONCURRENCY);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
    throw new UsageError("--concurrency must be an integer from 1 to 64");
  }
  return {
    file,
    format,
    map: values.map,
    dryRun: values["dry-run"] === true,
    concurrency,
    origin: values.origin,
  };
}

/** A row's values as a report line shows them: text past 2,000 characters cut, at any depth (an NDJSON event's quote). */
function shortened(value: unknown): unknown {
  if (typeof value === "string") return value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
  if (Array.isArray(value)) return value.map(shortened);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortened(v)]));
}

/**
 * Rows that failed, one JSON object a line: `{ row, line, fields, messages }`. An earlier run's
 * report is replaced by this run's first failed row, or removed once this run has read every row
 * without one; a run that stops before (a refused token, a bad mapping) leaves it as it was.
 */
class ErrorReport {
  private fd: number | null = null;
  count = 0;
  constructor(readonly path: string) {}
  write(row: { row: number; line: number; fields: Record<string, unknown> }, messages: FieldError[]): void {
    this.fd ??= openSync(this.path, "w");
    const fields = shortened(row.fields) as Record<string, unknown>;
    writeSync(this.fd, `${JSON.stringify({ row: row.row, line: row.line, fields, messages })}\n`);
    this.count += 1;
  }
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
  /** The run read every row: without a failure of its own, an earlier run's report is stale. */
  finished(): void {
    if (this.count === 0) rmSync(this.path, { force: true });
  }
}

async function main(): Promise<number> {
  const opts = options();
  const size = statSync(opts.file).size;
  const baseUrl = (process.env.LEDGER_URL ?? "http://localhost:3000").replace(/\/$/, "");
  const token = process.env.LEDGER_TOKEN ?? "";
  if (!opts.dryRun && !token)
    throw new UsageError("LEDGER_TOKEN is not set: use the write token `npm start` printed");
  await checkUtf8(opts.file);
  const report = new ErrorReport(`${opts.file}.import-errors.ndjson`);
  const counts = { rows: 0, events: 0, created: 0, existing: 0, failed: 0, bytes: 0, size, sent: 0 };
  /** What the archive cannot hold of rows as the dataset gave them: each said once, with its count. */
  const notes = new Map<string, number>();
  /** ndjson: the origin this run records on every event, once the file's first line is read. */
  let ndjsonOrigin: string | null = null;
  const started = Date.now();
  const progress = startProgress(`import ${basename(opts.file)}`, process.stderr.isTTY === true, started);
  const fail = (
    row: { row: number; line: number; fields: Record<string, unknown> },
    messages: FieldError[],
  ) => {
    counts.failed += 1;
    report.write(row, messages);
  };
  const sender = opts.dryRun
    ? null
    : new Sender({
        baseUrl,
        token,
        concurrency: opts.concurrency,
        wholeIncidents: opts.format === "ndjson",
        onStored(rows, stored) {
          counts.created += stored.created;
          counts.existing += stored.existing;
          counts.events += stored.created + stored.existing;
          void rows;
        },
        onFailed: ({ row, messages, type }) => {
          counts.sent -= row.events.length;
          // An export's event ids are the same on every run; only what this run adds to each
          // event (its origin) can differ from what an earlier run stored under them. (An id
          // another append still holds, or a batch part-stored, is a conflict of another kind.)
          const rerun =
            ndjsonOrigin !== null &&
            type?.endsWith("#problem-event-id-conflict") &&
            messages.some((m) => m.message.endsWith("with different content"))
              ? [
                  {
                    path: "(import)",
                    message: `this export's events are stored here already, with another importedFrom.origin: a rerun stores nothing new only with the first run's --origin (this run's is ${ndjsonOrigin})`,
                  },
                ]
              : [];
          fail(row, [...messages, ...rerun]);
        },
      });

  /** One row: its events checked with the API's own field rules, then sent (or, dry, counted). */
  const take = async (source: SourceRow, mapped: MappedRow) => {
    counts.rows += 1;
    if (!mapped.ok) return fail(source, mapped.errors);
    const errors: FieldError[] = [];
    mapped.events.forEach((event, i) => {
      const parsed = parseEnvelope(event, mapped.events.length > 1 ? ["events", i] : []);
      if (!parsed.ok) errors.push(...parsed.errors);
      // The API refuses a date after its own clock: so does a dry run, by this machine's.
      else
        errors.push(
          ...futureDates(
            parsed.value,
            new Date().toISOString(),
            mapped.events.length > 1 ? `events[${i}].` : "",
          ),
        );
    });
    if (errors.length > 0) return fail(source, mapped.explain?.(errors) ?? errors);
    for (const note of mapped.notes ?? []) notes.set(note, (notes.get(note) ?? 0) + 1);
    if (!sender) {
      counts.events += mapped.events.length;
      return;
    }
    const row: RowEvents = { ...source, incidentId: mapped.incidentId, events: mapped.events };
    counts.sent += row.events.length;
    await sender.add(row);
  };

  async function readInto(): Promise<void> {
    if (opts.format === "ndjson") {
      const { lines, bytesRead: read } = ndjsonLines(opts.file);
      bytesRead = read;
      // As an empty CSV is (no header row): a file with nothing to import is not a finished one.
      if (size === 0) throw new ImportFileError("the file is empty: no event to import");
      let exportId: string | null = null;
      const chains: ExportChains = new Map();
      for await (const { row, line, text } of lines) {
        exportId ??= createHash("sha256").update(text).digest("hex");
        ndjsonOrigin ??= opts.origin ?? `export:${exportId.slice(0, 16)}`;
        const origin = ndjsonOrigin;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch (error) {
          counts.rows += 1;
          fail({ row, line, fields: { text } }, [
            { path: "(line)", message: `is not JSON: ${(error as Error).message}` },
          ]);
          continue;
        }
        // What the API refuses of a body's shape is refused here, before anything walks it.
        const shape = jsonShapeProblem(text);
        if (shape !== null) {
          counts.rows += 1;
          fail({ row, line, fields: { text } }, [{ path: "(line)", message: shape }]);
          continue;
        }
        const fields = (typeof parsed === "object" && parsed !== null ? parsed : { text }) as Record<
          string,
          string
        >;
        await take({ row, line, fields }, ndjsonRow(parsed, row - 1, exportId, origin, chains));
      }
    } else {
      const { header, rows, bytesRead: read } = await csvRows(opts.file);
      bytesRead = read;
      // A spreadsheet saved with another separator reads as one column holding every name.
      const separator =
        header.length === 1 ? [";", "\t", "|"].find((c) => header[0]?.includes(c)) : undefined;
      const separatorHint = separator
        ? `\n  its header is one column holding "${separator === "\t" ? "\\t" : separator}": the file is separated by ${separator === "\t" ? "tabs" : `"${separator}"`}, not commas; save it as CSV with commas`
        : "";
      let map: (row: SourceRow) => MappedRow;
      if (opts.format === "csv") {
        const text = readFileSync(opts.map as string, "utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch (error) {
          throw new ImportFileError(`the mapping ${opts.map} is not JSON: ${(error as Error).message}`);
        }
        const checked = checkMapping(json, header);
        if (!checked.ok) {
          throw new ImportFileError(
            `the mapping ${opts.map} does not fit the file:\n${checked.errors.map((e) => `  ${e.path}: ${e.message}`).join("\n")}${separatorHint}`,
          );
        }
        const seen = new Set<string>();
        map = (row) => mappedRow(checked.mapping, row, seen);
      } else {
        const required = opts.format === "acled" ? ACLED_REQUIRED : UCDP_REQUIRED;
        const missing = missingColumns(header, required);
        if (missing.length > 0) {
          // An archive's own acled.csv or ucdp-ged.csv holds one summary row per incident, not
          // the dataset's events: what moves an archive is its events.ndjson.
          const ownExport = header.includes("ledger_version")
            ? "; it is an archive's own export (its ledger_* columns say so), a row per incident's summary that cannot be read back as events: import that archive's events.ndjson (--format ndjson) instead"
            : ` (it has: ${header.join(", ")})`;
          throw new ImportFileError(
            `the file lacks the ${opts.format.toUpperCase()} column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}${ownExport}${separatorHint}`,
          );
        }
        const lower = header.map((h) => h.toLowerCase());
        const format = opts.format === "acled" ? acledRow : ucdpRow;
        map = (row) => {
          const fields: Record<string, string> = {};
          header.forEach((h, i) => {
            Object.defineProperty(fields, lower[i] as string, {
              value: row.fields[h] ?? "",
              enumerable: true,
            });
          });
          return format({ ...row, fields });
        };
      }
      for await (const row of rows) {
        if ("error" in row) {
          counts.rows += 1;
          fail(row, [{ path: "(row)", message: row.error }]);
          continue;
        }
        await take(row, map(row));
      }
    }
  }

  let bytesRead = () => 0;
  const tick = setInterval(() => progress.update({ ...counts, bytes: bytesRead() }), 200);
  // Ctrl-C: what was stored stays stored; say so, and that the same command goes on from there.
  process.once("SIGINT", () => {
    clearInterval(tick);
    progress.stop();
    report.close();
    process.stderr.write(
      `\ninterrupted after ${counted(counts.rows, "row")} read: ${counted(counts.created, "event")} stored, ${counts.existing} already there, ${counted(counts.failed, "row")} failed. ` +
        "Run the same command again to go on: what is stored is answered as already there, nothing is stored twice.\n",
    );
    process.exit(130);
  });
  // A file that cannot be read on stops the import, once the rows read before it are sent.
  let unreadable: Error | null = null;
  try {
    try {
      await readInto();
    } catch (error) {
      if (!(error instanceof ImportFileError) || counts.rows === 0) throw error;
      unreadable = error;
    }
    await sender?.finish();
  } finally {
    clearInterval(tick);
    progress.update({ ...counts, bytes: size });
    progress.stop();
    report.close();
  }
  if (unreadable) throw unreadable;
  report.finished();
  const seconds = (Date.now() - started) / 1000;
  const rate = seconds > 0 ? Math.round(counts.events / seconds) : counts.events;
  process.stdout.write(
    opts.dryRun
      ? `dry run: ${counted(counts.rows, "row")}, ${counted(counts.events, "event")} valid, ${counted(counts.failed, "row")} failed; nothing stored.\n`
      : `${counted(counts.rows, "row")}: ${counted(counts.created, "event")} stored, ${counts.existing} already there, ` +
          `${counted(counts.failed, "row")} failed, in ${seconds.toFixed(1)} s (${rate} events/s).\n`,
  );
  for (const [note, rows] of notes) process.stdout.write(`note, ${counted(rows, "row")}: ${note}.\n`);
  if (counts.failed > 0) process.stdout.write(`failed rows: ${report.path}\n`);
  return counts.failed > 0 ? 1 : 0;
}

/** "1 row", "3 rows". */
function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}`);
    else if (error instanceof ImportFileError || error instanceof ImportStoppedError) {
      process.stderr.write(`import stopped: ${error.message}\n`);
    } else if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      process.stderr.write(`import stopped: ${error.message}\n`);
    } else process.stderr.write(`import failed: ${error.stack ?? error.message}\n`);
    process.exit(2);
  },
);
