import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { LinkRow } from "../../events/editorial.js";
import { type IncomingLink, incomingOf } from "../../events/links.js";
import { backOff, batchGetItems, isConditionFailed } from "../store/dynamo-idioms.js";

/** The index item of an incident: a key no incident id can take (ids are slugs, without `#`). */
export const linksInKey = (incidentId: string) => `${incidentId}#links-in`;
/** The item of an incident's own current links, one entry per other incident. */
export const linksOutKey = (incidentId: string) => `${incidentId}#links-out`;

function isTooLarge(error: unknown): boolean {
  const e = error as { name?: string; message?: string } | null;
  return e?.name === "ValidationException" && /size/i.test(e.message ?? "");
}

/**
 * Which incidents link to an incident. A link is an event of the incident that posts it (A);
 * the other one (B) learns of it from this index, one item per B in the views table holding a
 * map from each A to A's current link to B. The projector writes it as it folds A's links, so
 * it is derived like a view: idempotent (a map entry per A, replaced by A's newer link), the
 * same whatever order and however often it is written, and rebuilt with the views (a rebuild
 * folds every A and writes its links). B's summary reads it beside its view. A's own current
 * links are kept alike, in an item of A's (a map from each B), for the page of all of them: A's
 * state keeps only the latest LINKS_KEPT.
 */
export class LinkIndex {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  /** Records A's current links (A's latest link to each other incident), on both sides. */
  async record(fromIncidentId: string, links: readonly LinkRow[]): Promise<void> {
    await Promise.all(
      links.flatMap((link) => [
        this.put(
          linksInKey(link.otherIncidentId),
          "links-in",
          fromIncidentId,
          incomingOf(fromIncidentId, link),
        ),
        this.put(linksOutKey(fromIncidentId), "links-out", link.otherIncidentId, link),
      ]),
    );
  }

  /** Sets one entry of an index item's map, making the item if there is none. */
  private async put(itemKey: string, itemType: string, entry: string, link: unknown): Promise<void> {
    const Key = { incidentId: { S: itemKey } };
    const value = { S: JSON.stringify(link) };
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await this.db.send(
          new UpdateItemCommand({
            TableName: this.table,
            Key,
            UpdateExpression: "SET links.#entry = :link",
            ConditionExpression: "attribute_exists(links)",
            ExpressionAttributeNames: { "#entry": entry },
            ExpressionAttributeValues: { ":link": value },
          }),
        );
        return;
      } catch (error) {
        // Past 400 KB of links: the link stays on A's own summary (its latest) and in its events.
        if (isTooLarge(error)) return;
        if (!isConditionFailed(error)) throw error;
      }
      try {
        await this.db.send(
          new PutItemCommand({
            TableName: this.table,
            Item: { ...Key, itemType: { S: itemType }, links: { M: { [entry]: value } } },
            ConditionExpression: "attribute_not_exists(incidentId)",
          }),
        );
        return;
      } catch (error) {
        // Another writer made the item meanwhile: set the entry in it.
        if (!isConditionFailed(error)) throw error;
      }
      await backOff(attempt);
    }
    throw new Error(`could not record the link ${entry} in the index item ${itemKey}`);
  }

  /** An incident's own current links, one per other incident (null: none recorded). */
  async outgoing(incidentId: string): Promise<LinkRow[] | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { incidentId: { S: linksOutKey(incidentId) } },
        ProjectionExpression: "links",
        ConsistentRead: true,
      }),
    );
    const map = out.Item?.links?.M as Record<string, { S?: string }> | undefined;
    if (!map) return null;
    return Object.values(map).flatMap((v) => (v.S ? [JSON.parse(v.S) as LinkRow] : []));
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
  return rowsOf(item?.links?.M as Record<string, { S?: string }> | undefined);
}

function rowsOf(map: Record<string, { S?: string }> | undefined): IncomingLink[] {
  if (!map) return [];
  return Object.values(map).flatMap((v) => (v.S ? [JSON.parse(v.S) as IncomingLink] : []));
}
