import { type DynamoDBClient, QueryCommand, type QueryCommandInput } from "@aws-sdk/client-dynamodb";
import { ACTIVITY_INDEX, LIST_PARTITION } from "../store/table-design.js";

/**
 * Every incident id, read from the views' activity index (a Query, which the sequencer's role
 * may do; no role of the stack may Scan). An incident whose view was never projected is missed
 * here, but the stream names it to the sequencer when it is stored.
 */
export function incidentsFromActivityIndex(db: DynamoDBClient, viewsTable: string) {
  return async (): Promise<string[]> => {
    const ids: string[] = [];
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await db.send(
        new QueryCommand({
          TableName: viewsTable,
          IndexName: ACTIVITY_INDEX.name,
          KeyConditionExpression: "#p = :p",
          ExpressionAttributeNames: { "#p": ACTIVITY_INDEX.partitionKey },
          ExpressionAttributeValues: { ":p": { S: LIST_PARTITION } },
          ProjectionExpression: "incidentId",
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) if (item.incidentId?.S) ids.push(item.incidentId.S);
      start = out.LastEvaluatedKey;
    } while (start);
    return ids;
  };
}
