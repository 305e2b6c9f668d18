import { ACLED_HEADER, acledRecord } from "../../events/export/acled-row.js";
import { INCIDENT_HEADER, incidentRecord } from "../../events/export/incident-row.js";
import { UCDP_HEADER, ucdpReads, ucdpRecord } from "../../events/export/ucdp-row.js";
import type { Summary } from "../../events/summarize.js";
import type { SummaryQuery } from "../incident-reader.js";
import type { FeedReader } from "./feed-reader.js";
import { type IncidentVersion, type LastVersionsOptions, lastVersionsById } from "./last-versions.js";
import type { LogReader } from "./log-reader.js";

export interface SummaryReader {
  summary(incidentId: string, query: SummaryQuery): Promise<Summary | null>;
  /**
   * The stored current summaries of these incidents (JSON text and version), where a view
   * holds one: a row whose incident's view is at the row's version is that text, read in a
   * batch, instead of a past view folded per incident. Without it every row is folded.
   */
  currentSummaries?(incidentIds: readonly string[]): Promise<Map<string, { version: number; json: string }>>;
}

/** Incidents whose rows are read at once: one BatchGetItem of their views, the folds among them in parallel. */
const ROWS_BATCH = 100;

/** Past views folded at once within a batch (incidents whose view is ahead of the tree size). */
const FOLDS_AT_ONCE = 8;

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
    yield* this.feed.lines(0, treeSize);
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
    return this.incidentRows(treeSize, UCDP_HEADER, ucdpRecord, ucdpReads);
  }

  /** The same rows in ACLED's layout (docs/reference/codebook.md, "acled.csv"). */
  acledCsv(treeSize: number): AsyncGenerator<string> {
    return this.incidentRows(treeSize, ACLED_HEADER, acledRecord);
  }

  /**
   * The rows in batches of ROWS_BATCH incidents, the next batch read while this one is
   * written: memory is two batches of summaries, whatever the archive holds. A stored view
   * serves a row only when it holds what the row reads (`reads`: a view stored before a
   * field existed lacks it); otherwise the row is folded, as a past view is.
   */
  private async *incidentRows(
    treeSize: number,
    header: string,
    incidentRecord: (summary: Summary) => string,
    reads: (summary: Summary) => boolean = () => true,
  ): AsyncGenerator<string> {
    yield header;
    const last = lastVersionsById(this.log.leaves(0, treeSize), this.sortOptions);
    const nextBatch = async (): Promise<IncidentVersion[]> => {
      const batch: IncidentVersion[] = [];
      while (batch.length < ROWS_BATCH) {
        const next = await last.next();
        if (next.done) break;
        batch.push(next.value);
      }
      return batch;
    };
    const rowsOf = async (batch: IncidentVersion[]): Promise<string> => {
      if (batch.length === 0) return "";
      const stored = (await this.reader.currentSummaries?.(batch.map((b) => b.incidentId))) ?? new Map();
      const rows: string[] = new Array(batch.length);
      let next = 0;
      const work = async () => {
        while (next < batch.length) {
          const i = next++;
          const { incidentId, version } = batch[i] as IncidentVersion;
          const view = stored.get(incidentId);
          const fromView = view?.version === version ? (JSON.parse(view.json) as Summary) : null;
          const summary =
            fromView && reads(fromView)
              ? fromView
              : await this.reader.summary(incidentId, { at: "version", version });
          if (!summary)
            throw new Error(`incident ${incidentId} has no version ${version} in the events table`);
          rows[i] = incidentRecord(summary);
        }
      };
      await Promise.all(Array.from({ length: Math.min(FOLDS_AT_ONCE, batch.length) }, work));
      return rows.join("");
    };
    try {
      let pending = rowsOf(await nextBatch());
      for (;;) {
        const rows = await pending;
        if (rows === "") break;
        // The next batch is read while this one goes out; a failure ahead is awaited in turn.
        pending = nextBatch().then(rowsOf);
        pending.catch(() => {});
        yield rows;
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
