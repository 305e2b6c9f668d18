import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";

/**
 * The DynamoDB idioms the archive's stores share, each written once: a put only if absent,
 * a number that only moves forward, paged batch reads and writes, bounded concurrency.
 */

type Item = Record<string, AttributeValue>;

/** BatchWriteItem's limit on requests a call. */
export const BATCH_WRITE_LIMIT = 25;
/** BatchGetItem's limit on keys a call. */
export const BATCH_GET_LIMIT = 100;

/** Castore's lesson: recognise the failed condition by name, not by class identity across bundles. */
export function isConditionFailed(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === "ConditionalCheckFailedException";
}

/** Runs a conditional write; true if it was written, false if its condition failed. */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** Puts the item only if no item has its key (`keyAttribute` names one of the key's attributes). */
export function putIfAbsent(
  db: DynamoDBClient,
  table: string,
  item: Item,
  keyAttribute: string,
): Promise<boolean> {
  return conditionally(
    db.send(
      new PutItemCommand({
        TableName: table,
        Item: item,
        ConditionExpression: "attribute_not_exists(#k)",
        ExpressionAttributeNames: { "#k": keyAttribute },
      }),
    ),
  );
}

/**
 * Sets a number attribute of the item at `key` to `value` only if that moves it forward: an
 * older writer finishing late changes nothing. True if it moved.
 */
export function advanceNumber(
  db: DynamoDBClient,
  table: string,
  key: Item,
  attribute: string,
  value: number,
): Promise<boolean> {
  return conditionally(
    db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key,
        UpdateExpression: "SET #a = :v",
        ConditionExpression: "attribute_not_exists(#a) OR #a < :v",
        ExpressionAttributeNames: { "#a": attribute },
        ExpressionAttributeValues: { ":v": { N: String(value) } },
      }),
    ),
  );
}

/**
 * Plain puts, 25 a BatchWriteItem, retrying with backoff what the store leaves unprocessed. A
 * batch write takes no condition: only for items whose content is fixed by their key (a repeat
 * writes the same bytes) or whose callers say why an overwrite is harmless.
 */
export async function batchPutItems(
  db: DynamoDBClient,
  table: string,
  items: readonly Item[],
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

/**
 * The items at `keys` (100 a BatchGetItem, the chunks read at once), retrying with backoff what the store leaves
 * unprocessed; missing items are simply absent. Order is not kept: callers key by their ids.
 */
export async function batchGetItems(
  db: DynamoDBClient,
  table: string,
  keys: readonly Item[],
  options: { projection?: string; names?: Record<string, string>; consistent?: boolean } = {},
): Promise<Item[]> {
  const chunks: Item[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_LIMIT) chunks.push(keys.slice(i, i + BATCH_GET_LIMIT));
  const found: Item[] = [];
  const read = async (chunk: Item[]) => {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      const out = await db.send(
        new BatchGetItemCommand({
          RequestItems: {
            [table]: {
              Keys: pending,
              ...(options.projection ? { ProjectionExpression: options.projection } : {}),
              ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
              ...(options.consistent ? { ConsistentRead: true } : {}),
            },
          },
        }),
      );
      found.push(...(out.Responses?.[table] ?? []));
      pending = (out.UnprocessedKeys?.[table]?.Keys ?? []) as Item[];
      if (pending.length > 0) await backOff(attempt);
    }
  };
  await Promise.all(chunks.map(read));
  return found;
}

export const backOff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** attempt)));

/** Runs `task` on every item, at most `limit` at once, in order of start. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
