import { type AttributeValue, BatchWriteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";

/** BatchWriteItem's limit on requests a call. */
export const BATCH_WRITE_LIMIT = 25;

/**
 * Plain puts, 25 a BatchWriteItem, retrying with backoff what the store leaves unprocessed. A
 * batch write takes no condition: only for items whose content is fixed by their key (a repeat
 * writes the same bytes) or whose callers say why an overwrite is harmless.
 */
export async function batchPutItems(
  db: DynamoDBClient,
  table: string,
  items: readonly Record<string, AttributeValue>[],
): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH_WRITE_LIMIT) {
    let requests = items.slice(i, i + BATCH_WRITE_LIMIT).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      const out = await db.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
      requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
      if (requests.length > 0) await backOff(attempt);
    }
  }
}

export const backOff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** attempt)));
