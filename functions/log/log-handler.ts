import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import type { Logger } from "../log.js";
import { COMMIT_ITEM_TYPE } from "../store/table-design.js";
import type { LogWriter } from "./log-service.js";

/** What the sequencer Lambda is invoked with: a batch of the events table's stream, or its schedule. */
export type LogSequencerEvent = DynamoDBStreamEvent | { source?: string; "detail-type"?: string };

/**
 * The log sequencer's Lambda logic, the same code as the local feed's: a stream batch names the
 * incidents that moved and one pass sequences them all, then signs a checkpoint; the schedule
 * runs a pass over every incident (catch-up for anything a stream delivery missed) and signs.
 * A failed pass reports every record of the batch, so the event source retries it (and bisects).
 */
export function createLogHandler(writer: () => Promise<LogWriter>, log: Logger) {
  return async (event: LogSequencerEvent): Promise<DynamoDBBatchResponse | undefined> => {
    const records = "Records" in event ? (event.Records ?? []) : null;
    if (records === null) {
      const w = await writer();
      const result = await w.pass();
      log.info("log catch-up", { size: result.size, added: result.added });
      await w.witnessed();
      return undefined;
    }
    const ids = new Set<string>();
    for (const record of records) {
      if (record.eventName && record.eventName !== "INSERT") continue;
      const image = record.dynamodb?.NewImage;
      if (image?.itemType?.S !== undefined && image.itemType.S !== COMMIT_ITEM_TYPE) continue;
      const id = record.dynamodb?.Keys?.incidentId?.S ?? image?.incidentId?.S;
      if (id) ids.add(id);
    }
    try {
      const w = await writer();
      const result = await w.pass(ids);
      log.info("log sequenced", { incidents: ids.size, size: result.size, added: result.added });
      // The checkpoint is stored and public already; the invocation only stays (each witness
      // within its own timeout) so that the answers are stored before Lambda freezes it.
      await w.witnessed();
      return { batchItemFailures: [] };
    } catch (error) {
      log.error("log sequencer pass failed", { error: String(error), incidents: ids.size });
      return {
        batchItemFailures: records.map((r) => ({
          itemIdentifier: r.dynamodb?.SequenceNumber ?? r.eventID ?? "",
        })),
      };
    }
  };
}
