import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { IncidentId } from "../../events/schemas.js";
import type { Logger } from "../logger.js";
import { CarriedCommits } from "../store/carried-commits.js";
import type { Item } from "../store/commit-item.js";
import { COMMIT_ITEM_TYPE } from "../store/table-design.js";
import type { Projector } from "./projector.js";

/**
 * The projector's Lambda logic for a batch of DynamoDB Streams records. Each touched incident
 * is caught up once: from the commits its records carry when they continue the projector's
 * state, else from the store (projector.ts). A record
 * that cannot be processed is reported in `batchItemFailures` (the event source mapping
 * retries, bisects, then parks it in the failure queue) instead of failing the whole batch.
 */
export function createStreamHandler(projector: Projector, log: Logger) {
  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const failures: string[] = [];
    const byIncident = new Map<string, string[]>();
    const carried = new CarriedCommits();
    for (const record of event.Records ?? []) {
      const sequence = record.dynamodb?.SequenceNumber ?? record.eventID ?? "";
      if (!isCommitInsert(record)) continue;
      const incidentId = incidentOf(record);
      if (incidentId === null) {
        log.error("stream record without an incidentId", { sequence, eventID: record.eventID });
        failures.push(sequence);
        continue;
      }
      byIncident.set(incidentId, [...(byIncident.get(incidentId) ?? []), sequence]);
      carried.add(incidentId, record.dynamodb?.NewImage as Item | undefined);
    }
    await Promise.all(
      [...byIncident].map(async ([incidentId, sequences]) => {
        try {
          const result = await projector.project(incidentId, carried.of(incidentId));
          if (result.to !== result.from) log.debug("projected", { ...result });
        } catch (error) {
          log.error("projection failed", { incidentId, error: String(error) });
          failures.push(...sequences);
        }
      }),
    );
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}

/** Only a new commit moves a view (items are never updated or deleted; other item types are not commits). */
function isCommitInsert(record: DynamoDBRecord): boolean {
  if (record.eventName && record.eventName !== "INSERT") return false;
  const type = record.dynamodb?.NewImage?.itemType?.S;
  return type === undefined || type === COMMIT_ITEM_TYPE;
}

/** The incident a commit record touched, checked with the API's own rule; null if unreadable. */
function incidentOf(record: DynamoDBRecord): string | null {
  const id = record.dynamodb?.Keys?.incidentId?.S ?? record.dynamodb?.NewImage?.incidentId?.S;
  return typeof id === "string" && IncidentId.safeParse(id).success ? id : null;
}
