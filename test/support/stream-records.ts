import type { DynamoDBRecord } from "aws-lambda";
import type { Item } from "../../functions/store/commit-item.js";
import type { EventStore } from "../../functions/store/event-store.js";

/** The INSERT record DynamoDB Streams delivers for a stored commit item (NEW_IMAGE), numbered `n`. */
export function streamRecord(item: Item, n: number): DynamoDBRecord {
  return {
    eventID: `${item.incidentId?.S}-${n}`,
    eventName: "INSERT",
    eventVersion: "1.1",
    eventSource: "aws:dynamodb",
    awsRegion: "eu-west-1",
    eventSourceARN: "arn:aws:dynamodb:eu-west-1:123456789012:table/events/stream/2026-11-30T00:00:00.000",
    dynamodb: {
      ApproximateCreationDateTime: 1764460800,
      Keys: { incidentId: item.incidentId, version: item.version } as never,
      NewImage: item as never,
      SequenceNumber: `${String(n).padStart(21, "0")}`,
      SizeBytes: 1000,
      StreamViewType: "NEW_IMAGE",
    },
  };
}

/** The records AWS would deliver for an incident's commits, read back from the table, in order. */
export async function streamRecords(events: EventStore, incidentId: string): Promise<DynamoDBRecord[]> {
  const records: DynamoDBRecord[] = [];
  for await (const item of events.commitItems(incidentId))
    records.push(streamRecord(item, records.length + 1));
  return records;
}
