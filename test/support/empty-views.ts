import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  paginateScan,
} from "@aws-sdk/client-dynamodb";

/** Deletes every item of a views table (key: incidentId), as a lost table would leave it: what a rebuild starts from. */
export async function emptyViewsTable(db: DynamoDBClient, table: string): Promise<void> {
  for await (const page of paginateScan({ client: db }, { TableName: table }))
    for (let i = 0; i < (page.Items ?? []).length; i += 25)
      await db.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [table]: (page.Items ?? []).slice(i, i + 25).map((item) => ({
              DeleteRequest: { Key: { incidentId: item.incidentId as AttributeValue } },
            })),
          },
        }),
      );
}
