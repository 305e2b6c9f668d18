import { gunzipSync, gzipSync } from "node:zlib";
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateQuery,
  paginateScan,
} from "@aws-sdk/client-dynamodb";
import { type Summary, summarize } from "../../events/summarize.js";
import type { IncidentState } from "../../events/summary.js";
import { isConditionFailed } from "./dynamo-client.js";
import { ACTIVITY_INDEX, LIST_PARTITION } from "./table-design.js";

/** A full re-check of a chain that passed: how far, to which hash, and when. */
export interface ChainCheckRecord {
  version: number;
  headHash: string;
  checkedAt: string;
}

/** The fold state is snapshotted at every multiple of this version, for past views. */
export const SNAPSHOT_EVERY = 100;

/**
 * A stored fold state, or null when there is none or it is of the earlier, unbounded shape
 * (whose `statements` was a list): the view is derived, so it is simply folded again.
 */
function unpack(packed: Uint8Array | undefined): IncidentState | null {
  if (!packed) return null;
  const state = JSON.parse(gunzipSync(packed).toString("utf8")) as IncidentState;
  return Array.isArray(state.statements) ? null : state;
}

const snapshotKey = (incidentId: string, version: number) => `${incidentId}#snapshot#${version}`;

/** A fold state as a snapshot stores it: packed at once, so the draft it came from may go on. */
export interface PackedSnapshot {
  incidentId: string;
  version: number;
  state: Uint8Array;
}

export function packSnapshot(state: IncidentState): PackedSnapshot {
  const { incidentId, version } = state;
  return { incidentId, version, state: gzipSync(JSON.stringify(state), { level: 1 }) };
}

function snapshotItem(snapshot: PackedSnapshot): Record<string, AttributeValue> {
  return {
    incidentId: { S: snapshotKey(snapshot.incidentId, snapshot.version) },
    version: { N: String(snapshot.version) },
    itemType: { S: "snapshot" },
    state: { B: snapshot.state },
  };
}

/** BatchWriteItem takes at most 25 items; what it leaves unprocessed is sent again, later. */
const BATCH_WRITE = 25;
const backOff = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** (attempt - 1))));
const checkKey = (incidentId: string) => `${incidentId}#chain-check`;

export interface ListQuery {
  kind?: string;
  country?: string;
  contested?: boolean;
  limit: number;
  /** The opaque cursor of the previous page. */
  cursor?: Record<string, AttributeValue>;
}

/** A listed view saved without its summary (it outgrew the item limit): the reader folds it. */
export interface Unprojected {
  unprojected: string;
}

export interface ListPage {
  items: (Summary | Unprojected)[];
  next: Record<string, AttributeValue> | null;
}

/**
 * The projected views: one item per incident, written only with a condition on its version,
 * so a slow or duplicated projection never overwrites a newer view.
 */
function isTooLarge(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === "ValidationException" && /size/i.test(e.message ?? "");
}

export class ViewStore {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  async getSummary(incidentId: string): Promise<Summary | null> {
    const stored = await this.getSummaryJson(incidentId);
    return stored ? (JSON.parse(stored.json) as Summary) : null;
  }

  /** The stored summary as the JSON text it was saved as, with its version. */
  async getSummaryJson(incidentId: string): Promise<{ version: number; json: string } | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: incidentId } },
        ProjectionExpression: "summary, version",
      }),
    );
    const json = out.Item?.summary?.S;
    return json ? { version: Number(out.Item?.version?.N), json } : null;
  }

  /** The fold state the projector continues from (consistent: it decides what is folded next). */
  async getState(incidentId: string): Promise<IncidentState | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: incidentId } },
        ProjectionExpression: "#s",
        ExpressionAttributeNames: { "#s": "state" },
        ConsistentRead: true,
      }),
    );
    return unpack(out.Item?.state?.B);
  }

  /**
   * The fold state as it stood exactly at `version` (a multiple of SNAPSHOT_EVERY), if the
   * projector has written it. Snapshots live in this table under keys no incident id can take
   * (ids are slugs, without `#`) and carry no listing keys, so the listing never sees them.
   */
  async getSnapshot(incidentId: string, version: number): Promise<IncidentState | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: snapshotKey(incidentId, version) } },
        ProjectionExpression: "#s",
        ExpressionAttributeNames: { "#s": "state" },
      }),
    );
    return unpack(out.Item?.state?.B);
  }

  /** Snapshots are derived: the same version always has the same state, so a put may repeat. */
  async saveSnapshot(state: IncidentState): Promise<void> {
    await this.db.send(
      new PutItemCommand({ TableName: this.table, Item: snapshotItem(packSnapshot(state)) }),
    );
  }

  /**
   * Snapshots of any incidents, 25 to a BatchWriteItem (the rebuild's; a put may repeat, as
   * above). Resolves once every one is written.
   */
  async saveSnapshots(snapshots: readonly PackedSnapshot[]): Promise<void> {
    for (let i = 0; i < snapshots.length; i += BATCH_WRITE) {
      let requests = snapshots
        .slice(i, i + BATCH_WRITE)
        .map((snapshot) => ({ PutRequest: { Item: snapshotItem(snapshot) } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await backOff(attempt);
        const out = await this.db.send(
          new BatchWriteItemCommand({ RequestItems: { [this.table]: requests } }),
        );
        requests = (out.UnprocessedItems?.[this.table] ?? []) as typeof requests;
      }
    }
  }

  /** The last full re-check of an incident's chain (by /verify or the page), if any. */
  async getCheck(incidentId: string): Promise<ChainCheckRecord | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: { incidentId: { S: checkKey(incidentId) } } }),
    );
    const item = out.Item;
    if (!item?.version?.N || !item.headHash?.S || !item.checkedAt?.S) return null;
    return { version: Number(item.version.N), headHash: item.headHash.S, checkedAt: item.checkedAt.S };
  }

  /** Records a passed full check; an older one never replaces a newer. */
  async saveCheck(incidentId: string, check: ChainCheckRecord): Promise<void> {
    try {
      await this.db.send(
        new PutItemCommand({
          TableName: this.table,
          Item: {
            incidentId: { S: checkKey(incidentId) },
            version: { N: String(check.version) },
            itemType: { S: "chain-check" },
            headHash: { S: check.headHash },
            checkedAt: { S: check.checkedAt },
          },
          ConditionExpression: "attribute_not_exists(incidentId) OR version <= :v",
          ExpressionAttributeValues: { ":v": { N: String(check.version) } },
        }),
      );
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
  }

  /** Saves the view if it is newer than the stored one; false when a newer one is already there. */
  async save(state: IncidentState): Promise<boolean> {
    const item = viewItem(state);
    try {
      await this.putIfNewer(item, state.version);
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      if (!isTooLarge(error)) throw error;
    }
    // Only an incident with thousands of live denials or retractions (which the summary lists in
    // full) gets here. Past DynamoDB's 400 KB item the view keeps its version and listing keys but no summary
    // or state, so readers fold the events instead of serving an older view as current.
    try {
      await this.putIfNewer(bareView(item), state.version);
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  /**
   * Saves up to 25 views of incidents that had none, in one BatchWriteItem. A batch write takes
   * no condition: a rebuild uses it only for views its scan found missing, and a view a live
   * projector saved meanwhile and this overwrites with an older one lags its head, so the next
   * sweep brings it back (views are derived; nothing is lost). Any view too large for one item
   * sends the batch down the one-by-one path.
   */
  async saveNew(states: readonly IncidentState[]): Promise<void> {
    let requests = states.map((state) => ({ PutRequest: { Item: viewItem(state) } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      try {
        const out = await this.db.send(
          new BatchWriteItemCommand({ RequestItems: { [this.table]: requests } }),
        );
        requests = (out.UnprocessedItems?.[this.table] ?? []) as typeof requests;
      } catch (error) {
        if (!isTooLarge(error)) throw error;
        for (const state of states) await this.save(state);
        return;
      }
      if (requests.length > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
    }
  }

  private async putIfNewer(item: Record<string, AttributeValue>, version: number): Promise<void> {
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: item,
        ConditionExpression: "attribute_not_exists(incidentId) OR version < :v",
        ExpressionAttributeValues: { ":v": { N: String(version) } },
      }),
    );
  }

  /** Newest activity first, filtered; pages until `limit` matches are found or the index ends. */
  async list(query: ListQuery): Promise<ListPage> {
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
    const items: ListPage["items"] = [];
    const pages = paginateQuery(
      { client: this.db, ...(query.cursor ? { startingToken: query.cursor } : {}) },
      {
        TableName: this.table,
        IndexName: ACTIVITY_INDEX.name,
        KeyConditionExpression: "listPk = :p",
        ExpressionAttributeValues: values,
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ...(filters.length > 0 ? { FilterExpression: filters.join(" AND ") } : {}),
        ScanIndexForward: false,
        Limit: filters.length > 0 ? Math.max(50, query.limit * 2) : query.limit,
      },
    );
    for await (const out of pages) {
      for (const item of out.Items ?? []) {
        const text = item.summary?.S;
        items.push(text ? (JSON.parse(text) as Summary) : { unprojected: item.incidentId?.S ?? "" });
        if (items.length === query.limit) {
          const more = out.LastEvaluatedKey !== undefined || item !== out.Items?.[out.Items.length - 1];
          const { incidentId, listPk, activity } = item;
          return {
            items,
            next: more ? ({ incidentId, listPk, activity } as Record<string, AttributeValue>) : null,
          };
        }
      }
    }
    return { items, next: null };
  }

  /** Every view's version, for the catch-up at start and the repair sweep (a full scan). */
  async *versions(): AsyncGenerator<[string, number]> {
    const pages = paginateScan(
      { client: this.db },
      { TableName: this.table, ProjectionExpression: "incidentId, version" },
    );
    for await (const out of pages) {
      for (const item of out.Items ?? []) yield [item.incidentId?.S ?? "", Number(item.version?.N)];
    }
  }
}

function viewItem(state: IncidentState): Record<string, AttributeValue> {
  const summary = summarize(state);
  const item: Record<string, AttributeValue> = {
    incidentId: { S: state.incidentId },
    version: { N: String(state.version) },
    summary: { S: JSON.stringify(summary) },
    // The fold state is bounded (see events/summary.ts): packed, it stays far below the 400 KB
    // item limit however long the incident. The summary beside it stays plain JSON for anyone
    // reading the table.
    state: { B: gzipSync(JSON.stringify(state), { level: 1 }) },
    listPk: { S: LIST_PARTITION },
    activity: { S: `${state.lastRecordedAt ?? ""}#${state.incidentId}` },
    contested: { BOOL: summary.contested },
  };
  if (summary.kind) item.kind = { S: summary.kind };
  if (summary.location?.country) item.country = { S: summary.location.country };
  return item;
}

function bareView(item: Record<string, AttributeValue>): Record<string, AttributeValue> {
  const { summary: _s, state: _t, ...bare } = item;
  return bare;
}
