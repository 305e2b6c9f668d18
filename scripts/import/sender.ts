import { MAX_BATCH } from "../../events/schemas.js";
import type { FieldError } from "../../events/validate.js";

/** One row's events, bound for one incident: the unit that is stored whole or not at all. */
export interface RowEvents {
  row: number;
  line: number;
  fields: Record<string, string>;
  incidentId: string;
  events: Record<string, unknown>[];
}

export interface RowFailure {
  row: RowEvents;
  messages: FieldError[];
  /** The problem type the archive answered, when it answered one. */
  type?: string;
}

/** The server refused the credentials, or stayed unreachable: nothing more can be stored. */
export class ImportStoppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportStoppedError";
  }
}

export interface SenderOptions {
  baseUrl: string;
  token: string;
  /** Requests in flight at most. */
  concurrency: number;
  onStored(rows: readonly RowEvents[], events: { created: number; existing: number }): void;
  onFailed(failure: RowFailure): void;
  /**
   * An incident whose opening the archive refuses because it holds another incident of that id
   * gets none of the file's events: they belong to the file's incident, not to the one here
   * (another archive's export). Without it the rest of its rows are appended to the one held.
   */
  wholeIncidents?: boolean;
  fetch?: typeof fetch;
}

type Answer =
  | { ok: true; counts: { created: number; existing: number } }
  | { ok: false; messages: FieldError[]; type?: string };

interface Batch {
  incidentId: string;
  rows: RowEvents[];
  size: number;
}

/** How many incidents may have a batch filling at once before the oldest is sent part-full. */
const OPEN_BATCHES = 256;
const RETRIES = 6;

/**
 * Appends rows through the HTTP API: consecutive rows of an incident share a batch of up to 25
 * events; batches of different incidents go out in parallel, those of one incident one after
 * another (a row may need the one before it, as an assessment needs its claim). A refused batch
 * of several rows is sent again row by row, so that one bad row fails alone and every row stays
 * whole. Back-pressure: `add` waits while the requests in flight and queued reach the limit, so
 * memory holds a bounded number of batches whatever the file's size.
 */
export class Sender {
  private readonly open = new Map<string, Batch>();
  private readonly chains = new Map<string, Promise<void>>();
  private inFlight = 0;
  private queued = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly slotWaiters: (() => void)[] = [];
  private stopped: Error | null = null;
  /** Incidents whose opening was refused as another one held here (wholeIncidents): the row that was. */
  private readonly refused = new Map<string, number>();
  private readonly fetch: typeof fetch;

  constructor(private readonly options: SenderOptions) {
    this.fetch = options.fetch ?? fetch;
  }

  async add(row: RowEvents): Promise<void> {
    if (this.stopped) throw this.stopped;
    let batch = this.open.get(row.incidentId);
    if (batch && batch.size + row.events.length > MAX_BATCH) {
      this.dispatch(batch);
      batch = undefined;
    }
    if (!batch) {
      batch = { incidentId: row.incidentId, rows: [], size: 0 };
      this.open.set(row.incidentId, batch);
      if (this.open.size > OPEN_BATCHES) {
        const oldest = this.open.values().next().value as Batch;
        this.dispatch(oldest);
      }
    }
    batch.rows.push(row);
    batch.size += row.events.length;
    if (batch.size === MAX_BATCH) this.dispatch(batch);
    while (this.queued >= this.options.concurrency * 4 && !this.stopped) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    if (this.stopped) throw this.stopped;
  }

  /** Sends what is still filling and resolves when every request has been answered. */
  async finish(): Promise<void> {
    for (const batch of [...this.open.values()]) this.dispatch(batch);
    await Promise.all([...this.chains.values()]);
    if (this.stopped) throw this.stopped;
  }

  private dispatch(batch: Batch): void {
    this.open.delete(batch.incidentId);
    this.queued += 1;
    const previous = this.chains.get(batch.incidentId) ?? Promise.resolve();
    const next = previous
      .then(() => this.sendBatch(batch))
      .finally(() => {
        this.queued -= 1;
        this.waiting.shift()?.();
        if (this.chains.get(batch.incidentId) === next) this.chains.delete(batch.incidentId);
      });
    this.chains.set(batch.incidentId, next);
  }

  private async sendBatch(batch: Batch): Promise<void> {
    if (this.stopped) return;
    if (this.refusedAll(batch.rows)) return;
    const answer = await this.post(
      batch.incidentId,
      batch.rows.flatMap((r) => r.events),
    );
    if (answer.ok) {
      this.options.onStored(batch.rows, answer.counts);
      return;
    }
    if (batch.rows.length === 1 && !this.eventByEvent(answer)) {
      this.failed(batch.rows[0] as RowEvents, answer);
      return;
    }
    for (const row of batch.rows) {
      if (this.stopped) return;
      if (this.refusedAll([row])) continue;
      const one = batch.rows.length === 1 ? answer : await this.post(row.incidentId, row.events);
      if (one.ok) this.options.onStored([row], one.counts);
      else if (this.eventByEvent(one)) await this.sendEventByEvent(row);
      else this.failed(row, one);
    }
  }

  /** Whether a refused row is sent again event by event: part of it stored, or its opening held. */
  private eventByEvent(answer: Answer): boolean {
    if (answer.ok) return false;
    const held = !this.options.wholeIncidents && answer.type?.endsWith("#problem-incident-exists");
    return partlyStored(answer) || held === true;
  }

  /**
   * A row part of which is stored already (an earlier version of a dataset's row: its opening
   * the same, its figure revised): its events one by one, in order, each answered as stored or
   * new. An opening the archive holds with other details is reported, and unless incidents are
   * taken whole (an export) the row's other events still go to that incident, as later rows do.
   */
  private async sendEventByEvent(row: RowEvents): Promise<void> {
    const counts = { created: 0, existing: 0 };
    const refusals: FieldError[] = [];
    const refused: Record<string, unknown>[] = [];
    for (const [i, event] of row.events.entries()) {
      if (this.stopped) return;
      const one = await this.post(row.incidentId, [event]);
      if (one.ok) {
        counts.created += one.counts.created;
        counts.existing += one.counts.existing;
        continue;
      }
      const opening = event.type === "IncidentOpened";
      if (opening && !this.options.wholeIncidents && one.type?.endsWith("#problem-incident-exists")) {
        refused.push(event);
        refusals.push({
          path: `events[${i}]`,
          message: `the opening was not stored: the archive holds incident ${row.incidentId} with other details (an earlier version of this row?); its other events were sent to it. Record a change of its details with IncidentRevised`,
        });
        continue;
      }
      // What went in before it is counted; the row is reported with the events left out.
      if (counts.created + counts.existing > 0) this.options.onStored([row], counts);
      this.failed(
        { ...row, events: [...refused, ...row.events.slice(i)] },
        { ...one, messages: [...refusals, ...one.messages] },
      );
      return;
    }
    this.options.onStored([row], counts);
    // The row is reported with the event not stored: its other events are.
    if (refusals.length > 0) this.options.onFailed({ row: { ...row, events: refused }, messages: refusals });
  }

  private failed(row: RowEvents, answer: Answer & { ok: false }): void {
    const opens = row.events.some((e) => e.type === "IncidentOpened");
    if (this.options.wholeIncidents && opens && answer.type?.endsWith("#problem-incident-exists"))
      this.refused.set(row.incidentId, row.row);
    this.options.onFailed({ row, messages: answer.messages, ...(answer.type ? { type: answer.type } : {}) });
  }

  /** Fails rows of an incident whose opening was refused (wholeIncidents), unsent; true if it did. */
  private refusedAll(rows: readonly RowEvents[]): boolean {
    const opening = this.refused.get(rows[0]?.incidentId ?? "");
    if (opening === undefined) return false;
    const message = `not sent: this archive already holds an incident ${rows[0]?.incidentId} of its own, so it refused this one's opening (row ${opening}); an export's incidents keep their ids, so its events are not re-recorded into that one (import the export into an archive that does not hold the id)`;
    for (const row of rows) this.options.onFailed({ row, messages: [{ path: "(import)", message }] });
    return true;
  }

  private async slot(): Promise<() => void> {
    if (this.inFlight >= this.options.concurrency) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    } else this.inFlight += 1;
    // A released slot passes straight to the next waiter, so inFlight counts it throughout.
    return () => {
      const next = this.slotWaiters.shift();
      if (next) next();
      else this.inFlight -= 1;
    };
  }

  private async post(incidentId: string, events: Record<string, unknown>[]): Promise<Answer> {
    const url = `${this.options.baseUrl}/incidents/${incidentId}/events`;
    const body = JSON.stringify({ events });
    for (let attempt = 0; ; attempt += 1) {
      if (this.stopped) return { ok: false, messages: [{ path: "(import)", message: "stopped" }] };
      const release = await this.slot();
      let status: number;
      let text: string;
      try {
        const response = await this.fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${this.options.token}` },
          body,
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        release();
        if (attempt < RETRIES) {
          await sleep(100 * 2 ** attempt);
          continue;
        }
        this.stop(
          new ImportStoppedError(`cannot reach ${this.options.baseUrl}: ${(error as Error).message}`),
        );
        return { ok: false, messages: [{ path: "(import)", message: "the server could not be reached" }] };
      }
      release();
      if (status === 201) return { ok: true, counts: { created: events.length, existing: 0 } };
      if (status === 200) return { ok: true, counts: { created: 0, existing: events.length } };
      if (status === 401 || status === 403) {
        this.stop(new ImportStoppedError(`the server refused the token (${status}): ${problemDetail(text)}`));
        return { ok: false, messages: [{ path: "(import)", message: "refused" }] };
      }
      if ((status === 429 || status >= 500) && attempt < RETRIES) {
        await sleep(100 * 2 ** attempt);
        continue;
      }
      if (status >= 500 || status === 429) {
        this.stop(new ImportStoppedError(`the server keeps failing (${status}): ${problemDetail(text)}`));
        return { ok: false, messages: [{ path: "(import)", message: `the server answered ${status}` }] };
      }
      return { ok: false, messages: problemMessages(status, text), type: problemType(text) };
    }
  }

  private stop(error: Error): void {
    if (!this.stopped) this.stopped = error;
    for (const wake of this.waiting.splice(0)) wake();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function problemDetail(text: string): string {
  try {
    const problem = JSON.parse(text) as { detail?: string; title?: string };
    return problem.detail ?? problem.title ?? text.slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

function problemType(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { type?: string }).type;
  } catch {
    return undefined;
  }
}

/** A problem document's field errors (paths as the server gave them), else its detail. */
function problemMessages(status: number, text: string): FieldError[] {
  try {
    const problem = JSON.parse(text) as { detail?: string; title?: string; errors?: FieldError[] };
    const detail = { path: "(event)", message: `${status} ${problem.detail ?? problem.title ?? ""}`.trim() };
    return problem.errors && problem.errors.length > 0 ? [detail, ...problem.errors] : [detail];
  } catch {
    return [{ path: "(event)", message: `${status} ${text.slice(0, 300)}` }];
  }
}

/** Refused because some of its events are stored already, not as this same batch. */
function partlyStored(answer: Answer): boolean {
  return (
    !answer.ok &&
    (answer.type?.endsWith("#problem-event-id-conflict") ?? false) &&
    answer.messages.some((m) => m.message.endsWith("is already stored"))
  );
}
