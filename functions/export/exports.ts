import { ACLED_HEADER, acledRecord } from "../../events/export/acled-row.js";
import { INCIDENT_HEADER, incidentRecord } from "../../events/export/incident-row.js";
import { UCDP_HEADER, ucdpRecord } from "../../events/export/ucdp-row.js";
import type { Summary } from "../../events/summarize.js";
import type { SummaryQuery } from "../incident-reader.js";
import type { FeedReader } from "./feed-reader.js";
import { type IncidentVersion, type LastVersionsOptions, lastVersionsById } from "./last-versions.js";
import type { LogReader } from "./log-reader.js";

export interface SummaryReader {
  summary(incidentId: string, query: SummaryQuery): Promise<Summary | null>;
}

/** How many incidents' summaries are folded ahead of the row being written. */
const ROWS_AHEAD = 8;

/**
 * The two exports, as text produced piece by piece, so that a response streams them with
 * memory bounded by a chunk of leaves, not by the archive. Both are a function of the tree
 * size alone (the log's first N leaves, immutable): the same N gives the same bytes.
 */
export class Exporter {
  constructor(
    private readonly feed: FeedReader,
    private readonly log: LogReader,
    private readonly reader: SummaryReader,
    /** How incidentsCsv sorts incidents by id (tests make runs tiny to exercise the merge). */
    private readonly sortOptions: LastVersionsOptions = {},
  ) {}

  /** One stored event a line (its JSON exactly as `GET /feed` gives it), in log order. */
  async *eventsNdjson(treeSize: number): AsyncGenerator<string> {
    let lines: string[] = [];
    for await (const { event } of this.feed.entries(0, treeSize)) {
      lines.push(`${JSON.stringify(event)}\n`);
      if (lines.length === 100) {
        yield lines.join("");
        lines = [];
      }
    }
    if (lines.length > 0) yield lines.join("");
  }

  /**
   * One row per incident, as of its last version within the first `treeSize` leaves, in order
   * of incident id. The leaves say which version that is (an incident's versions enter the log
   * in order); the row is the summary folded up to it, the same past view `?version=N` gives.
   * Memory: bounded by `lastVersionsById`'s run size (it spills sorted runs to disk past it),
   * never by the number of incidents or events.
   */
  incidentsCsv(treeSize: number): AsyncGenerator<string> {
    return this.incidentRows(treeSize, INCIDENT_HEADER, incidentRecord);
  }

  /** The same rows in UCDP GED's layout (docs/reference/codebook.md, "ucdp-ged.csv"). */
  ucdpGedCsv(treeSize: number): AsyncGenerator<string> {
    return this.incidentRows(treeSize, UCDP_HEADER, ucdpRecord);
  }

  /** The same rows in ACLED's layout (docs/reference/codebook.md, "acled.csv"). */
  acledCsv(treeSize: number): AsyncGenerator<string> {
    return this.incidentRows(treeSize, ACLED_HEADER, acledRecord);
  }

  private async *incidentRows(
    treeSize: number,
    header: string,
    incidentRecord: (summary: Summary) => string,
  ): AsyncGenerator<string> {
    yield header;
    const row = async ({ incidentId, version }: IncidentVersion) => {
      const summary = await this.reader.summary(incidentId, { at: "version", version });
      if (!summary) throw new Error(`incident ${incidentId} has no version ${version} in the events table`);
      return incidentRecord(summary);
    };
    const last = lastVersionsById(this.log.leaves(0, treeSize), this.sortOptions);
    const ahead: Promise<string>[] = [];
    let more = true;
    try {
      while (more || ahead.length > 0) {
        while (more && ahead.length < ROWS_AHEAD) {
          const next = await last.next();
          if (next.done) {
            more = false;
            break;
          }
          const pending = row(next.value);
          // Awaited in turn below; this only keeps a failure ahead of the reader from going unhandled.
          pending.catch(() => {});
          ahead.push(pending);
        }
        if (ahead.length > 0) yield await (ahead.shift() as Promise<string>);
      }
    } finally {
      await last.return(undefined);
    }
  }
}

/** A byte stream that asks the generator for more only when the reader wants it (back-pressure). */
export function textStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(encoder.encode(value));
      },
      async cancel() {
        await chunks.return(undefined);
      },
    },
    { highWaterMark: 1 },
  );
}
