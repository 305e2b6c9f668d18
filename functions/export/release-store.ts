import {
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  type QueryCommandInput,
} from "@aws-sdk/client-dynamodb";
import { isConditionFailed } from "../store/dynamo-client.js";
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

/**
 * Named checkpoints. Each is put once at the next number with attribute_not_exists, so two
 * writers racing for a number collide and the loser re-reads and tries the next; a name is
 * checked against the list first, and the list is short (one item per release, never per event).
 */
export class ReleaseStore {
  constructor(
    private readonly db: DynamoDBClient,
    private readonly table: string,
  ) {}

  async list(): Promise<Release[]> {
    const releases: Release[] = [];
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": { S: RELEASE_PK } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) releases.push(JSON.parse(item.release?.S ?? "{}") as Release);
      start = out.LastEvaluatedKey;
    } while (start);
    return releases;
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
    const item = out.Items?.[0];
    return item ? (JSON.parse(item.release?.S ?? "{}") as Release) : null;
  }

  async byName(name: string): Promise<Release | null> {
    return (await this.list()).find((r) => r.name === name) ?? null;
  }

  async create(release: Omit<Release, "number">): Promise<Release> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const existing = await this.list();
      const taken = existing.find((r) => r.name === release.name);
      if (taken) {
        throw new ReleaseNameTakenError(
          `a release named ${taken.name} already exists (number ${taken.number}, tree size ${taken.treeSize}); choose another name`,
          [{ path: "name", message: "is already taken by another release" }],
          { release: taken.number },
        );
      }
      const number = (existing[existing.length - 1]?.number ?? 0) + 1;
      const stored: Release = { number, ...release };
      try {
        await this.db.send(
          new PutItemCommand({
            TableName: this.table,
            Item: {
              pk: { S: RELEASE_PK },
              sk: { N: String(number) },
              name: { S: stored.name },
              treeSize: { N: String(stored.treeSize) },
              release: { S: JSON.stringify(stored) },
            },
            ConditionExpression: "attribute_not_exists(sk)",
          }),
        );
        return stored;
      } catch (error) {
        if (!isConditionFailed(error)) throw error;
      }
    }
    throw new Error("could not claim a release number after 20 attempts");
  }
}
