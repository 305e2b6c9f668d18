import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import type { Logger } from "../logger.js";
import { CarriedCommits } from "../store/carried-commits.js";
import type { Item } from "../store/commit-item.js";
import { COMMIT_ITEM_TYPE } from "../store/table-design.js";
import { emfLine, timestampEmfLine } from "./log-metrics.js";
import type { LogWriter } from "./log-service.js";
import { TIMESTAMP_TICK } from "./timestamp-keeper.js";

/** What the sequencer Lambda is invoked with: a batch of the events table's stream, or its schedule. */
export type LogSequencerEvent = DynamoDBStreamEvent | { source?: string; "detail-type"?: string };

/**
 * The log sequencer's Lambda logic, the same code as local sequencing's: a stream batch names the
 * incidents that moved and one pass sequences them all, then signs a checkpoint; the schedule
 * runs a pass over every incident (catch-up for anything a stream delivery missed) and signs.
 * A failed pass reports every record of the batch, so the event source retries it (and bisects).
 */
export function createLogHandler(
  writer: () => Promise<LogWriter>,
  log: Logger,
  /** Where the health metric line goes (CloudWatch reads EMF from the function's log). */
  emit: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
  now: () => number = Date.now,
) {
  /** One EMF line per run: what is left unsigned, and how long the oldest event waited. */
  const report = (w: LogWriter, ok: boolean) => {
    const { count, oldest } = w.sequencer.lastPending;
    const at = now();
    emit(
      emfLine(
        {
          origin: w.publisher.origin,
          leavesBehind: ok ? 0 : count,
          checkpointDelaySeconds: oldest ? Math.max(0, (at - Date.parse(oldest)) / 1000) : 0,
        },
        at,
      ),
    );
  };
  return async (event: LogSequencerEvent): Promise<DynamoDBBatchResponse | undefined> => {
    const records = "Records" in event ? (event.Records ?? []) : null;
    if (
      records === null &&
      "detail-type" in event &&
      event["detail-type"] === TIMESTAMP_TICK["detail-type"]
    ) {
      // Trusted time (issue 21): one time-stamping step, apart from the passes (a slow TSA holds
      // no stream batch back). Its delay is the metric the TimestampDelay alarm watches.
      const w = await writer();
      if (!w.timestamps) return undefined;
      const { delaySeconds } = await w.timestamps.tick();
      emit(timestampEmfLine({ origin: w.publisher.origin, timestampDelaySeconds: delaySeconds }, now()));
      return undefined;
    }
    if (records === null) {
      const w = await writer();
      try {
        const result = await w.pass();
        report(w, true);
        log.info("log catch-up", { size: result.size, added: result.added });
      } catch (error) {
        report(w, false);
        throw error;
      }
      await w.witnessed();
      return undefined;
    }
    const ids = new CarriedCommits();
    for (const record of records) {
      if (record.eventName && record.eventName !== "INSERT") continue;
      const image = record.dynamodb?.NewImage;
      if (image?.itemType?.S !== undefined && image.itemType.S !== COMMIT_ITEM_TYPE) continue;
      const id = record.dynamodb?.Keys?.incidentId?.S ?? image?.incidentId?.S;
      if (id) ids.add(id, image as Item | undefined);
    }
    let w: LogWriter | undefined;
    try {
      w = await writer();
      const result = await w.pass(ids.incidents, ids.usable());
      report(w, true);
      log.info("log sequenced", { incidents: ids.incidents.length, size: result.size, added: result.added });
      // The checkpoint is stored and public already; the invocation only stays (each witness
      // within its own timeout) so that the answers are stored before Lambda freezes it.
      await w.witnessed();
      return { batchItemFailures: [] };
    } catch (error) {
      if (w) report(w, false);
      log.error("log sequencer pass failed", { error: String(error), incidents: ids.incidents.length });
      return {
        batchItemFailures: records.map((r) => ({
          itemIdentifier: r.dynamodb?.SequenceNumber ?? r.eventID ?? "",
        })),
      };
    }
  };
}
