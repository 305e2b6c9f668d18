import { type DynamoDBClient, GetItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import { incidentTag, parseServerEventId } from "../../events/server-ids.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { ClaimTable } from "../store/claims.js";
import { type Commit, itemToCommit } from "../store/commit-item.js";

/**
 * Finds one stored event by its id within its incident in one or two reads, as the append path
 * does: a server-made id names its version; a client id is found through its claim, which names
 * the commit. Never a read of the whole incident.
 */
export class EventLocator {
  private readonly claims: ClaimTable;

  constructor(
    private readonly db: DynamoDBClient,
    private readonly tables: { events: string; claims: string },
  ) {
    this.claims = new ClaimTable(db, tables.claims, () => new Date().toISOString());
  }

  async find(incidentId: string, eventId: string): Promise<{ event: StoredEvent; commit: number } | null> {
    const made = parseServerEventId(eventId);
    let commit: Commit | null = null;
    if (made) {
      if (made.tag !== incidentTag(incidentId)) return null;
      commit = await this.commitHolding(incidentId, made.version);
    } else {
      const claim = await this.claims.get(eventId);
      if (!claim || claim.incidentId !== incidentId) return null;
      const out = await this.db.send(
        new GetItemCommand({
          TableName: this.tables.events,
          Key: { incidentId: { S: incidentId }, version: { N: String(claim.slot) } },
          ConsistentRead: true,
        }),
      );
      commit = out.Item ? itemToCommit(out.Item) : null;
    }
    const event = commit?.events.find((e) => e.eventId === eventId);
    return commit && event ? { event, commit: commit.version } : null;
  }

  private async commitHolding(incidentId: string, version: number): Promise<Commit | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tables.events,
        KeyConditionExpression: "incidentId = :i AND version <= :v",
        ExpressionAttributeValues: { ":i": { S: incidentId }, ":v": { N: String(version) } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? itemToCommit(item) : null;
  }
}
