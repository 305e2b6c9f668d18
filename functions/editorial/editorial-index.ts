import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { type AttributionRow, type LinkRow, perpetratorKey } from "../../events/editorial.js";
import { type IncomingLink, incomingOf } from "../../events/links.js";
import { backOff, batchGetItems, isConditionFailed } from "../store/dynamo-idioms.js";

// Keys no incident id can take (ids are slugs, without `#`): EDITORIAL_INDEX_SUFFIXES.
/** The item of the links other incidents posted naming an incident, one entry per other incident. */
export const linksInKey = (incidentId: string) => `${incidentId}#links-in`;
/** The item of an incident's own current links, one entry per other incident. */
export const linksOutKey = (incidentId: string) => `${incidentId}#links-out`;
/** The item of an incident's current attributions, one entry per perpetrator. */
export const attributionsKey = (incidentId: string) => `${incidentId}#attributions`;

/** The current rows a fold set (events/editorial.ts EditorialRows). */
export interface EditorialRowsFolded {
  links: readonly LinkRow[];
  attributions: readonly AttributionRow[];
}

type ItemType = "links-in" | "links-out" | "attributions";
/** The map attribute of each kind of item (the link items' name came first, and the views read it beside the summary). */
const MAP_OF: Record<ItemType, string> = { "links-in": "links", "links-out": "links", attributions: "rows" };

function isTooLarge(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === "ValidationException" && /size/i.test(e.message ?? "");
}

/**
 * The editorial rows an incident's state keeps only the latest of, kept whole in the views table:
 * one item per incident and kind, holding a map from each row's key to the row.
 *
 * - **Links.** A link is an event of the incident that posts it (A); the other one (B) learns of
 *   it from B's `#links-in` item, a map from each A to A's current link to B, which B's summary
 *   reads beside its view. A's own current links are in A's `#links-out`, for the page of them.
 * - **Attributions.** Each perpetrator's current assessment, in `#attributions`, for the page.
 *
 * The projector writes them as it folds, before the view that vouches for them (and a rebuild as
 * it folds from nothing), so they are derived like a view: idempotent (an entry per key, replaced
 * by a row of a later version only) and rebuilt with the views. Two projections of one incident at
 * once (the repair beside the stream) each write their rows; an entry keeps the later version's.
 */
export class EditorialIndex {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  /** Records the rows a fold of `incidentId` set: its links on both sides, and its attributions. */
  async record(incidentId: string, rows: EditorialRowsFolded): Promise<void> {
    await Promise.all([
      ...rows.links.flatMap((link) => [
        this.put(linksInKey(link.otherIncidentId), "links-in", incidentId, incomingOf(incidentId, link)),
        this.put(linksOutKey(incidentId), "links-out", link.otherIncidentId, link),
      ]),
      ...rows.attributions.map((row) =>
        this.put(attributionsKey(incidentId), "attributions", perpetratorKey(row.perpetrator), row),
      ),
    ]);
  }

  /**
   * Sets one entry of an index item's map, making the item if there is none, unless the entry
   * holds a row of the same or a later version (a projection that lost a race, or a replay).
   * An entry is `{ v, row }`; one written before entries carried their version is the row's
   * JSON alone, and any row replaces it.
   */
  private async put(
    itemKey: string,
    itemType: ItemType,
    entry: string,
    row: { version: number },
  ): Promise<void> {
    const Key = { incidentId: { S: itemKey } };
    const map = MAP_OF[itemType];
    const version = { N: String(row.version) };
    const value = { M: { v: version, row: { S: JSON.stringify(row) } } };
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await this.db.send(
          new UpdateItemCommand({
            TableName: this.table,
            Key,
            UpdateExpression: "SET #map.#entry = :entry",
            ConditionExpression:
              "attribute_exists(#map) AND (attribute_not_exists(#map.#entry.#v) OR #map.#entry.#v < :v)",
            ExpressionAttributeNames: { "#map": map, "#entry": entry, "#v": "v" },
            ExpressionAttributeValues: { ":entry": value, ":v": version },
          }),
        );
        return;
      } catch (error) {
        // Past 400 KB of rows: the row stays on the incident's own summary (its latest) and in its events.
        if (isTooLarge(error)) return;
        if (!isConditionFailed(error)) throw error;
      }
      const held = await this.entryHeld(Key, map, entry, row.version);
      if (held === "newer") return;
      if (held === "no item")
        try {
          await this.db.send(
            new PutItemCommand({
              TableName: this.table,
              Item: { ...Key, itemType: { S: itemType }, [map]: { M: { [entry]: value } } },
              ConditionExpression: "attribute_not_exists(incidentId)",
            }),
          );
          return;
        } catch (error) {
          // Another writer made the item meanwhile: set the entry in it.
          if (!isConditionFailed(error)) throw error;
        }
      // An older row than ours, written between the update and the read: try again.
      await backOff(attempt);
    }
    throw new Error(`could not record the entry ${entry} in the index item ${itemKey}`);
  }

  /** Why an entry's update was refused: no item yet, or a row held of the same or a later version than `version`. */
  private async entryHeld(
    Key: Record<string, AttributeValue>,
    map: string,
    entry: string,
    version: number,
  ): Promise<"no item" | "newer" | "older"> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key,
        ProjectionExpression: "#map.#entry",
        ExpressionAttributeNames: { "#map": map, "#entry": entry },
        ConsistentRead: true,
      }),
    );
    if (!out.Item) return "no item";
    const held = out.Item[map]?.M?.[entry]?.M?.v?.N;
    return held !== undefined && Number(held) >= version ? "newer" : "older";
  }

  /** Every row of one of an incident's own items (null: none recorded). */
  private async own<T>(itemKey: string, itemType: ItemType): Promise<T[] | null> {
    const attribute = MAP_OF[itemType];
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: itemKey } },
        ProjectionExpression: "#map",
        ExpressionAttributeNames: { "#map": attribute },
        ConsistentRead: true,
      }),
    );
    const map = out.Item?.[attribute]?.M;
    return map ? rowsOf<T>(map) : null;
  }

  /** An incident's own current links, one per other incident (null: none recorded). */
  outgoing(incidentId: string): Promise<LinkRow[] | null> {
    return this.own<LinkRow>(linksOutKey(incidentId), "links-out");
  }

  /** An incident's current attributions, one per perpetrator (null: none recorded). */
  attributions(incidentId: string): Promise<AttributionRow[] | null> {
    return this.own<AttributionRow>(attributionsKey(incidentId), "attributions");
  }

  /** The links posted on other incidents naming `incidentId`. */
  async incoming(incidentId: string): Promise<IncomingLink[]> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: linksInKey(incidentId) } },
        ProjectionExpression: "links",
      }),
    );
    return incomingOfItem(out.Item);
  }

  /** The same for a page of incidents (at most 100), by incident id. */
  async incomingMany(ids: readonly string[]): Promise<Map<string, IncomingLink[]>> {
    const keys = [...new Set(ids)].map((id) => ({ incidentId: { S: linksInKey(id) } }));
    const items = await batchGetItems(this.db, this.table, keys, { projection: "incidentId, links" });
    return new Map(
      items.map((item) => [(item.incidentId?.S ?? "").replace(/#links-in$/, ""), incomingOfItem(item)]),
    );
  }
}

/** The links an index item holds (none for no item): for a read that fetched it beside the view. */
export function incomingOfItem(item: Record<string, AttributeValue> | undefined): IncomingLink[] {
  return rowsOf<IncomingLink>(item?.links?.M);
}

/** The rows of an index item's map: each entry `{ v, row }`, or an entry's row alone as first written. */
function rowsOf<T>(map: Record<string, AttributeValue> | undefined): T[] {
  if (!map) return [];
  return Object.values(map).flatMap((v) => {
    const text = v.M?.row?.S ?? v.S;
    return text ? [JSON.parse(text) as T] : [];
  });
}
