import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  paginateScan,
} from "@aws-sdk/client-dynamodb";
import type { SpillLog, SpillPiece } from "../../events/spill.js";
import type { Summary } from "../../events/summarize.js";
import type { IncidentState } from "../../events/summary.js";
import { batchGetItems, batchPutItems, conditionally } from "./dynamo-idioms.js";
import {
  type PackedSnapshot,
  type PackedView,
  packSnapshot,
  pieceItem,
  pieceKey,
  type StoredSummary,
  snapshotItem,
  snapshotKey,
  storedSummary,
  unpack,
  viewItem,
} from "./view-items.js";
import { type ListPage, type ListQuery, listViews } from "./view-listing.js";

export { type PackedSnapshot, type PackedView, SNAPSHOT_EVERY, type StoredSummary } from "./view-items.js";
export type { ListPage, ListQuery } from "./view-listing.js";

/**
 * The last full re-check of a chain: how far, to which hash, and when; a failed one (`ok`
 * false) names where the chain broke, and stands until a full check passes again.
 */
export interface ChainCheckRecord {
  version: number;
  headHash: string;
  checkedAt: string;
  ok?: boolean;
  firstBadVersion?: number;
  reason?: string;
}

const checkKey = (incidentId: string) => `${incidentId}#chain-check`;

function isTooLarge(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === "ValidationException" && /size/i.test(e.message ?? "");
}

/**
 * The projected views: one item per incident, written only with a condition on its version,
 * so a slow or duplicated projection never overwrites a newer view.
 */
/** What a save did: whether the view was written, and the size of its packed fold state. */
export interface SavedView {
  saved: boolean;
  stateBytes: number;
}

export class ViewStore {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  async getSummary(incidentId: string): Promise<Summary | null> {
    const stored = await this.getSummaryJson(incidentId);
    return stored?.json ? (JSON.parse(stored.json) as Summary) : null;
  }

  /**
   * The stored summary as the JSON text it was saved as, with its version; `json` is null for a
   * view that stores none (a list spilled into pieces: the reader assembles it). null: no view.
   */
  async getSummaryJson(incidentId: string): Promise<StoredSummary | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: incidentId } },
        ProjectionExpression: "summary, version",
      }),
    );
    return storedSummary(out.Item);
  }

  /**
   * The stored summary and an item kept beside the view under another key of this table (the
   * links other incidents posted, functions/links), in one BatchGetItem: the read every summary
   * makes costs one request, not two.
   */
  async getSummaryJsonBeside(
    incidentId: string,
    besideKey: string,
  ): Promise<{
    view: StoredSummary | null;
    beside: Record<string, AttributeValue> | undefined;
  }> {
    const items = await batchGetItems(
      this.db,
      this.table,
      [{ incidentId: { S: incidentId } }, { incidentId: { S: besideKey } }],
      { projection: "incidentId, summary, version, links" },
    );
    return {
      view: storedSummary(items.find((i) => i.incidentId?.S === incidentId)),
      beside: items.find((i) => i.incidentId?.S === besideKey),
    };
  }

  /**
   * The stored summaries of many incidents with their versions (BatchGetItem, 100 keys a
   * request); an incident without a view, or whose view carries no summary, is absent.
   */
  async getSummariesJson(
    incidentIds: readonly string[],
  ): Promise<Map<string, { version: number; json: string }>> {
    const items = await batchGetItems(
      this.db,
      this.table,
      incidentIds.map((id) => ({ incidentId: { S: id } })),
      { projection: "incidentId, summary, version" },
    );
    const found = new Map<string, { version: number; json: string }>();
    for (const item of items) {
      const json = item.summary?.S;
      if (json) found.set(item.incidentId?.S ?? "", { version: Number(item.version?.N), json });
    }
    return found;
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

  /**
   * Sealed pieces of an incident's spilled lists (events/spill.ts), under keys no incident id can
   * take, without listing keys. A piece never changes once written, so any read of it will do.
   */
  async getPieces(
    incidentId: string,
    wanted: readonly { log: SpillLog; index: number }[],
  ): Promise<SpillPiece[]> {
    const keys = wanted.map(({ log, index }) => ({ incidentId: { S: pieceKey(incidentId, log, index) } }));
    return (await batchGetItems(this.db, this.table, keys)).map((item) => {
      const [, log, index] = /#spill#([a-z]+)#(\d+)$/.exec(item.incidentId?.S ?? "") ?? [];
      return { log: log as SpillLog, index: Number(index), rows: JSON.parse(item.rows?.S ?? "[]") };
    });
  }

  /** Pieces are derived and never change: the same piece always has the same rows, so a put may repeat. */
  async savePieces(incidentId: string, pieces: readonly SpillPiece[] = []): Promise<void> {
    // One PutItem each (a projection seals one piece now and then): the projector's role needs
    // no batch write; the rebuild (saveNew) writes them 25 at a time.
    await Promise.all(
      pieces.map((p) =>
        this.db.send(new PutItemCommand({ TableName: this.table, Item: pieceItem(incidentId, p) })),
      ),
    );
  }

  /** Snapshots are derived: the same version always has the same state, so a put may repeat. */
  async saveSnapshot(state: IncidentState): Promise<void> {
    await this.savePieces(state.incidentId, state.unsaved);
    await this.putSnapshot(snapshotItem(packSnapshot(state)));
  }

  /**
   * A snapshot too large for one item (a state of hundreds of sources, see saveItem) is not
   * kept: snapshots only spare past reads a fold from the one before, so nothing is lost.
   */
  private async putSnapshot(item: Record<string, AttributeValue>): Promise<void> {
    try {
      await this.db.send(new PutItemCommand({ TableName: this.table, Item: item }));
    } catch (error) {
      if (!isTooLarge(error)) throw error;
    }
  }

  /**
   * Snapshots of any incidents, 25 to a BatchWriteItem (the rebuild's; a put may repeat, as
   * above). Resolves once every one is written.
   */
  async saveSnapshots(snapshots: readonly PackedSnapshot[]): Promise<void> {
    // Pieces first, as for a view: a snapshot that names a piece vouches that it was written.
    const pieces = new Map<string, Record<string, AttributeValue>>();
    for (const snapshot of snapshots)
      for (const piece of snapshot.pieces) {
        const item = pieceItem(snapshot.incidentId, piece);
        pieces.set(item.incidentId?.S ?? "", item);
      }
    await this.batchPut([...pieces.values()]);
    const items = snapshots.map(snapshotItem);
    try {
      await this.batchPut(items);
    } catch (error) {
      // A batch refused for one item's size: each put alone, the too large one left out.
      if (!isTooLarge(error)) throw error;
      for (const item of items) await this.putSnapshot(item);
    }
  }

  /** The last full re-check of an incident's chain (by /verify or the page), if any. */
  async getCheck(incidentId: string): Promise<ChainCheckRecord | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: { incidentId: { S: checkKey(incidentId) } } }),
    );
    const item = out.Item;
    if (!item?.version?.N || !item.headHash?.S || !item.checkedAt?.S) return null;
    const record = {
      version: Number(item.version.N),
      headHash: item.headHash.S,
      checkedAt: item.checkedAt.S,
    };
    if (item.ok?.BOOL !== false) return record;
    return {
      ...record,
      ok: false,
      firstBadVersion: Number(item.firstBadVersion?.N),
      reason: item.reason?.S ?? "",
    };
  }

  /** Records a full check, passed or failed; an older one never replaces a newer. */
  async saveCheck(incidentId: string, check: ChainCheckRecord): Promise<void> {
    await conditionally(
      this.db.send(
        new PutItemCommand({
          TableName: this.table,
          Item: {
            incidentId: { S: checkKey(incidentId) },
            version: { N: String(check.version) },
            itemType: { S: "chain-check" },
            headHash: { S: check.headHash },
            checkedAt: { S: check.checkedAt },
            ...(check.ok === false
              ? {
                  ok: { BOOL: false },
                  firstBadVersion: { N: String(check.firstBadVersion ?? 0) },
                  reason: { S: check.reason ?? "" },
                }
              : {}),
          },
          ConditionExpression: "attribute_not_exists(incidentId) OR version <= :v",
          ExpressionAttributeValues: { ":v": { N: String(check.version) } },
        }),
      ),
    );
  }

  /**
   * Saves the view if it is newer than the stored one (`saved` false when a newer one is already
   * there), and says how many bytes its packed state took.
   */
  async save(state: IncidentState): Promise<SavedView> {
    // Pieces first: a view (or snapshot) that names a piece vouches that it was written.
    await this.savePieces(state.incidentId, state.unsaved);
    const item = viewItem(state);
    return { saved: await this.saveItem(item, state.version), stateBytes: item.state?.B?.length ?? 0 };
  }

  private async saveItem(item: Record<string, AttributeValue>, version: number): Promise<boolean> {
    // The state grows with an incident's sources (their latest reports of up to 64 categories),
    // so one with hundreds of sources of long figure texts can pass DynamoDB's 400 KB item. The
    // view then keeps its summary (at most 256 KB) without the state: readers are served as
    // ever, and the projector and past reads fold the events instead. Failing that, only its
    // version and listing keys: readers fold the events rather than serve an older view as current.
    const [full, summaryOnly, bare] = [item, withoutAttribute(item, "state"), bareView(item)];
    for (const attempt of [full, summaryOnly]) {
      try {
        return await this.putIfNewer(attempt, version);
      } catch (error) {
        if (!isTooLarge(error)) throw error;
      }
    }
    return this.putIfNewer(bare, version);
  }

  /**
   * Saves up to 25 views of incidents that had none, in one BatchWriteItem. A batch write takes
   * no condition: a rebuild uses it only for views its scan found missing, and a view a live
   * projector saved meanwhile and this overwrites with an older one lags its head, so the next
   * sweep brings it back (views are derived; nothing is lost). Any view too large for one item
   * sends the batch down the one-by-one path.
   */
  async saveNew(views: readonly PackedView[]): Promise<void> {
    await this.batchPut(views.flatMap((v) => v.pieces.map((p) => pieceItem(v.incidentId, p))));
    await this.saveViews(views.map((v) => v.item));
  }

  /** View items in batch writes; a batch refused for an item's size goes one by one, each with its version condition. */
  private async saveViews(items: readonly Record<string, AttributeValue>[]): Promise<void> {
    try {
      await this.batchPut(items);
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      for (const item of items) await this.saveItem(item, Number(item.version?.N));
    }
  }

  /** Plain puts, 25 per BatchWriteItem (its limit), retrying what the store leaves unprocessed. */
  private batchPut(items: readonly Record<string, AttributeValue>[]): Promise<void> {
    return batchPutItems(this.db, this.table, items);
  }

  /** true if stored; false when a view as new or newer is already there. */
  private putIfNewer(item: Record<string, AttributeValue>, version: number): Promise<boolean> {
    return conditionally(
      this.db.send(
        new PutItemCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: "attribute_not_exists(incidentId) OR version < :v",
          ExpressionAttributeValues: { ":v": { N: String(version) } },
        }),
      ),
    );
  }

  /** Newest activity first, filtered, a bounded read a request (view-listing.ts). */
  list(query: ListQuery): Promise<ListPage> {
    return listViews(this.db, this.table, query);
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

function withoutAttribute(
  item: Record<string, AttributeValue>,
  name: string,
): Record<string, AttributeValue> {
  const { [name]: _dropped, ...rest } = item;
  return rest;
}

function bareView(item: Record<string, AttributeValue>): Record<string, AttributeValue> {
  return withoutAttribute(withoutAttribute(item, "state"), "summary");
}
