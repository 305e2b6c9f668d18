import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import { putIfAbsent } from "../store/dynamo-idioms.js";
import { ReleaseNameTakenError } from "./export-errors.js";

/** Releases live in the log table under this partition key, numbered 1, 2, … by sort key. */
export const RELEASE_PK = "release";

export interface Release {
  number: number;
  name: string;
  note: string;
  treeSize: number;
  /** base64, as in the checkpoint. */
  root: string;
  /** The signed checkpoint the release names, in full. */
  checkpoint: string;
  createdAt: string;
  createdBy: string;
}

/** Each release's name also keys an item of its own (a copy of the release), so that a read by name is one GetItem. */
export const releaseNameKey = (name: string) => `${RELEASE_PK}#${name}`;

export interface ReleasePage {
  items: Release[];
  /** The number of the page's last release while more follow, else null. */
  after: number | null;
}

const itemOf = (item: Record<string, AttributeValue> | undefined): Release | null =>
  item?.release?.S ? (JSON.parse(item.release.S) as Release) : null;

/**
 * Named checkpoints. Each is put once at the next number with attribute_not_exists, so two
 * writers racing for a number collide and the loser re-reads and tries the next; a name is
 * checked against the list first (writes are rare: one item per release, never per event).
 * After its number, a release's name item is put (the same record under `release#<name>`):
 * reads by name are then one GetItem. A crash between the two puts is healed by the next create
 * of that name (which finds it listed, answers 409 and puts the name item again).
 */
export class ReleaseStore {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  /** Every release, in order of number (for create's name check and tools; reads page by page). */
  async list(): Promise<Release[]> {
    const releases: Release[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page: ReleasePage = await this.page(after, 1000);
      releases.push(...page.items);
      after = page.after;
    }
    return releases;
  }

  /** Up to `limit` releases numbered above `after`, in order: one Query. */
  async page(after: number, limit: number): Promise<ReleasePage> {
    // One more than asked: whether another page follows is then known without a second read.
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :pk AND sk > :after",
        ExpressionAttributeValues: { ":pk": { S: RELEASE_PK }, ":after": { N: String(after) } },
        ConsistentRead: true,
        Limit: limit + 1,
      }),
    );
    const items = (out.Items ?? []).map((item) => itemOf(item) as Release);
    const more = items.length > limit;
    if (more) items.length = limit;
    return { items, after: more ? (items[items.length - 1] as Release).number : null };
  }

  /** The newest release: one Query of one item, whatever the number of releases. */
  async latest(): Promise<Release | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": { S: RELEASE_PK } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return itemOf(out.Items?.[0]);
  }

  /** One GetItem, whatever the number of releases. */
  async byName(name: string): Promise<Release | null> {
    const out = await this.db.send(
      new GetItemCommand({
        TableName: this.table,
        Key: { pk: { S: releaseNameKey(name) }, sk: { N: "0" } },
        ConsistentRead: true,
      }),
    );
    return itemOf(out.Item);
  }

  async create(release: Omit<Release, "number">): Promise<Release> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const existing = await this.list();
      const taken = existing.find((r) => r.name === release.name);
      if (taken) {
        await this.putName(taken);
        throw new ReleaseNameTakenError(
          `a release named ${taken.name} already exists (number ${taken.number}, tree size ${taken.treeSize}); choose another name`,
          [{ path: "name", message: "is already taken by another release" }],
          { release: taken.number },
        );
      }
      const newest = existing[existing.length - 1];
      // Releases stored before names had items of their own get theirs on the next create.
      if (newest && !(await this.byName(newest.name))) for (const r of existing) await this.putName(r);
      const number = (newest?.number ?? 0) + 1;
      const stored: Release = { number, ...release };
      const item = {
        pk: { S: RELEASE_PK },
        sk: { N: String(number) },
        name: { S: stored.name },
        treeSize: { N: String(stored.treeSize) },
        release: { S: JSON.stringify(stored) },
      };
      if (await putIfAbsent(this.db, this.table, item, "sk")) {
        await this.putName(stored);
        return stored;
      }
    }
    throw new Error("could not claim a release number after 20 attempts");
  }

  /** The name item: a copy of the numbered release, put again with the same content if it exists. */
  private async putName(release: Release): Promise<void> {
    await this.db.send(
      new PutItemCommand({
        TableName: this.table,
        Item: {
          pk: { S: releaseNameKey(release.name) },
          sk: { N: "0" },
          number: { N: String(release.number) },
          release: { S: JSON.stringify(release) },
        },
      }),
    );
  }
}
