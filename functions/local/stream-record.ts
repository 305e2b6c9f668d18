import type { DynamoDBRecord } from "aws-lambda";
import type { Item } from "../store/commit-item.js";

/**
 * dynalite has no streams: a stored commit item as the INSERT record DynamoDB Streams would
 * deliver for it (NEW_IMAGE), numbered `sequence`, so the local stream hands the projector the
 * same shape its Lambda gets.
 */
export function localStreamRecord(item: Item, sequence: number, tableName: string): DynamoDBRecord {
  return {
    eventID: `local-${sequence}`,
    eventName: "INSERT",
    eventVersion: "1.1",
    eventSource: "aws:dynamodb",
    awsRegion: "local",
    eventSourceARN: `arn:aws:dynamodb:local:000000000000:table/${tableName}/stream/local`,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: { incidentId: item.incidentId, version: item.version } as never,
      NewImage: item as never,
      SequenceNumber: String(sequence).padStart(21, "0"),
      SizeBytes: JSON.stringify(item).length,
      StreamViewType: "NEW_IMAGE",
    },
  };
}
