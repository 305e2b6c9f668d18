import { type AttributeValue, type DynamoDBClient, paginateQuery } from "@aws-sdk/client-dynamodb";
import type { Summary } from "../../events/summarize.js";
import { batchGetItems } from "./dynamo-idioms.js";
import { ACTIVITY_INDEX, LIST_PARTITION } from "./table-design.js";
import { type StoredSummary, storedSummary } from "./view-items.js";

/** Index items one listing request examines at most, whatever its filters match. */
export const LISTING_READ_MAX = 500;
export interface ListQuery {
  kind?: string;
  country?: string;
  contested?: boolean;
  limit: number;
  /** The opaque cursor of the previous page. */
  cursor?: Record<string, AttributeValue>;
  /** Index items examined at most (default LISTING_READ_MAX). */
  readMax?: number;
}

/** A listed view saved without its summary (a list spilled into pieces): the reader assembles it. */
export interface Unprojected {
  unprojected: string;
  /** The view's version (what the assembled summary is at). */
  version: number;
}

export interface ListPage {
  items: (Summary | Unprojected)[];
  next: Record<string, AttributeValue> | null;
}

/**
 * Newest activity first, filtered; pages until `limit` matches are found, the index ends, or
 * LISTING_READ_MAX index items were examined (then the page may be short, with a cursor).
 */
export async function listViews(db: DynamoDBClient, table: string, query: ListQuery): Promise<ListPage> {
  const filters: string[] = [];
  const values: Record<string, AttributeValue> = { ":p": { S: LIST_PARTITION } };
  const names: Record<string, string> = {};
  if (query.kind !== undefined) {
    filters.push("#kind = :kind");
    names["#kind"] = "kind";
    values[":kind"] = { S: query.kind };
  }
  if (query.country !== undefined) {
    filters.push("country = :country");
    values[":country"] = { S: query.country };
  }
  if (query.contested !== undefined) {
    filters.push("contested = :contested");
    values[":contested"] = { BOOL: query.contested };
  }
  const ids: string[] = [];
  let next: ListPage["next"] = null;
  const pages = paginateQuery(
    { client: db, ...(query.cursor ? { startingToken: query.cursor } : {}) },
    {
      TableName: table,
      IndexName: ACTIVITY_INDEX.name,
      KeyConditionExpression: "listPk = :p",
      ExpressionAttributeValues: values,
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ...(filters.length > 0 ? { FilterExpression: filters.join(" AND ") } : {}),
      ScanIndexForward: false,
      // Unfiltered, one item past the page says whether there is more (a Query that stops at
      // its Limit gives a LastEvaluatedKey even when nothing follows).
      Limit:
        filters.length > 0
          ? Math.min(query.readMax ?? LISTING_READ_MAX, Math.max(50, query.limit * 2))
          : query.limit + 1,
    },
  );
  let examined = 0;
  reading: for await (const out of pages) {
    for (const item of out.Items ?? []) {
      ids.push(item.incidentId?.S ?? "");
      if (ids.length === query.limit) {
        const more = out.LastEvaluatedKey !== undefined || item !== out.Items?.[out.Items.length - 1];
        const { incidentId, listPk, activity } = item;
        if (more) next = { incidentId, listPk, activity } as Record<string, AttributeValue>;
        break reading;
      }
    }
    // A filter that matches few: the page comes back short, with where to go on.
    examined += out.ScannedCount ?? out.Items?.length ?? 0;
    if (examined >= (query.readMax ?? LISTING_READ_MAX) && out.LastEvaluatedKey) {
      next = out.LastEvaluatedKey;
      break;
    }
  }
  const stored = await storedSummaries(db, table, ids);
  const items = ids.map((id) => {
    const view = stored.get(id);
    return view?.json ? (JSON.parse(view.json) as Summary) : { unprojected: id, version: view?.version ?? 0 };
  });
  return { items, next };
}

/**
 * The summaries of a page of the listing, by incident id (one BatchGetItem: a page holds at
 * most 100). The listing index carries no summary (it would copy each view's summary into the
 * index on every view write); a view that stores none comes back with its version alone.
 */
async function storedSummaries(
  db: DynamoDBClient,
  table: string,
  ids: readonly string[],
): Promise<Map<string, StoredSummary>> {
  const found = new Map<string, StoredSummary>();
  const keys = [...new Set(ids)].map((id) => ({ incidentId: { S: id } }));
  for (const item of await batchGetItems(db, table, keys, { projection: "incidentId, summary, version" })) {
    const view = storedSummary(item);
    if (view) found.set(item.incidentId?.S ?? "", view);
  }
  return found;
}
