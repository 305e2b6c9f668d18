import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { advanceNumber, conditionally, putIfAbsent } from "../store/dynamo-idioms.js";

/**
 * The transparency log's table. One partition per kind of item (pk), ordered by a number (sk):
 *
 *   leaves          sk = first index   a run of ≤ 256 consecutive leaves, never crossing a
 *                                      multiple of 256 (so a tile's leaves are ≤ a few runs).
 *                                      Put only if absent: the key is the slot sequencers race for.
 *   seq#<incident>  sk = first version where a run put this incident's versions: their indexes.
 *                                      The newest item says how far the incident is sequenced.
 *   sequencer       sk = 0             `size`: every leaf below it has its seq# item and tiles.
 *   catchup         sk = 0             `from`: where the scheduled catch-up reads commits (AWS).
 *   tile#<L>        sk = N             a full hash tile (256 × 32 bytes), immutable.
 *   tileroot#<L>    sk = N             the root of that full tile (an entry of tile L+1).
 *   entries         sk = N             a full entry bundle, immutable.
 *   checkpoint      sk = tree size     the signed checkpoint; `text` gains witness cosignatures.
 *   release         sk = 1, 2, …       releases (functions/export, the FEED side).
 *   timestamp…      sk = tree size     RFC 3161 tokens over checkpoints (timestamp-store.ts).
 *
 * Items are readable with any DynamoDB tool: leaves are JSON text, hashes are binary.
 */

export interface LeafRecord {
  index: number;
  incidentId: string;
  version: number;
  eventId: string;
  /** The event's chain hash (lowercase hex). */
  hash: string;
  /** First version of the events-table commit item holding the event. */
  commit: number;
}

export interface LeafRun {
  start: number;
  leaves: LeafRecord[];
}

export interface StoredCheckpoint {
  size: number;
  /** base64 root hash. */
  root: string;
  /** The signed note, with every cosignature gathered so far. */
  text: string;
}

/** Where one incident's versions went in a run: `indexes[i]` holds version `first + i`. */
export interface SequencedVersions {
  incidentId: string;
  first: number;
  indexes: number[];
}

/** A run never holds more than this, nor crosses a multiple of it (one tile's width). */
export const RUN_WIDTH = 256;

type Item = Record<string, AttributeValue>;

const LEAVES = "leaves";
const SEQUENCER = "sequencer";
const CATCH_UP = "catchup";
const CHECKPOINT = "checkpoint";
const ENTRIES = "entries";
const seqKey = (incidentId: string) => `seq#${incidentId}`;
const tileKey = (level: number) => `tile#${level}`;
const tileRootKey = (level: number) => `tileroot#${level}`;

const key = (pk: string, sk: number): Item => ({ pk: { S: pk }, sk: { N: String(sk) } });

export class LogStore {
  constructor(
    readonly db: DynamoDBClient,
    readonly table: string,
  ) {}

  // ── Checkpoints ──────────────────────────────────────────────────────────────────────────

  /** The newest signed checkpoint (the largest tree size), or null before the first. */
  async latestCheckpoint(): Promise<StoredCheckpoint | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :p",
        ExpressionAttributeValues: { ":p": { S: CHECKPOINT } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? toCheckpoint(item) : null;
  }

  async checkpointAt(size: number): Promise<StoredCheckpoint | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(CHECKPOINT, size), ConsistentRead: true }),
    );
    return out.Item ? toCheckpoint(out.Item) : null;
  }

  /** Stores a checkpoint if none is stored at its size; returns the one stored there. */
  async putCheckpoint(checkpoint: StoredCheckpoint): Promise<StoredCheckpoint> {
    const item = {
      ...key(CHECKPOINT, checkpoint.size),
      root: { S: checkpoint.root },
      text: { S: checkpoint.text },
    };
    if (await putIfAbsent(this.db, this.table, item, "sk")) return checkpoint;
    return (await this.checkpointAt(checkpoint.size)) as StoredCheckpoint;
  }

  /**
   * Appends cosignature lines to the note of the checkpoint at `size`, if it has this root (a
   * cosignature only ever joins the body it signed). Witnesses answer concurrently: each update
   * is conditional on the note it extends, and re-read and retried when another got there first.
   */
  async addCosignatures(size: number, root: string, lines: readonly string[]): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.checkpointAt(size);
      if (!current || current.root !== root) return;
      const have = new Set(current.text.split("\n"));
      const added = lines.map((l) => l.replace(/\n$/, "")).filter((line) => !have.has(line));
      if (added.length === 0) return;
      const written = await conditionally(
        this.db.send(
          new UpdateItemCommand({
            TableName: this.table,
            Key: key(CHECKPOINT, size),
            UpdateExpression: "SET #t = :t",
            ConditionExpression: "root = :r AND #t = :old",
            ExpressionAttributeNames: { "#t": "text" },
            ExpressionAttributeValues: {
              ":t": { S: `${current.text}${added.map((l) => `${l}\n`).join("")}` },
              ":r": { S: root },
              ":old": { S: current.text },
            },
          }),
        ),
      );
      if (written) return;
    }
    throw new Error(`cosignatures for checkpoint ${size} lost the race 10 times`);
  }

  // ── Leaves ───────────────────────────────────────────────────────────────────────────────

  /** Leaves with index in [from, to), in index order, read page by page. */
  async *leaves(from: number, to: number): AsyncGenerator<LeafRecord> {
    if (to <= from) return;
    // A run starts no more than RUN_WIDTH − 1 before any index it holds.
    for await (const run of this.runsBetween(Math.max(0, from - RUN_WIDTH + 1), to - 1)) {
      for (const leaf of run.leaves) {
        if (leaf.index >= to) return;
        if (leaf.index >= from) yield leaf;
      }
    }
  }

  /** Runs whose first index lies in [first, last], in order. */
  async *runsBetween(first: number, last = Number.MAX_SAFE_INTEGER): AsyncGenerator<LeafRun> {
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b",
          ExpressionAttributeValues: {
            ":p": { S: LEAVES },
            ":a": { N: String(first) },
            ":b": { N: String(last) },
          },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) yield toRun(item);
      start = out.LastEvaluatedKey;
    } while (start);
  }

  /** The run that ends the log (the highest first index), or null for an empty log. */
  async lastRun(): Promise<LeafRun | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :p",
        ExpressionAttributeValues: { ":p": { S: LEAVES } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? toRun(item) : null;
  }

  /**
   * Puts a run at its first index if that slot is free. false: another sequencer took the
   * slot first (the caller re-reads and starts over).
   */
  async putRun(run: LeafRun): Promise<boolean> {
    const first = run.leaves[0];
    if (!first || first.index !== run.start) throw new RangeError("a run starts at its first leaf");
    if (
      run.leaves.length > RUN_WIDTH ||
      Math.floor(run.start / RUN_WIDTH) !== Math.floor((run.start + run.leaves.length - 1) / RUN_WIDTH)
    )
      throw new RangeError("a run never crosses a tile boundary");
    const item = {
      ...key(LEAVES, run.start),
      count: { N: String(run.leaves.length) },
      leaves: { L: run.leaves.map((leaf) => ({ S: JSON.stringify(leaf) })) },
    };
    return putIfAbsent(this.db, this.table, item, "sk");
  }

  // ── Which versions of an incident are in the log ──────────────────────────────────────────

  /** The highest version of the incident that has a leaf recorded in its seq# items (0: none). */
  async sequencedUpTo(incidentId: string): Promise<number> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :p",
        ExpressionAttributeValues: { ":p": { S: seqKey(incidentId) } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    return item ? toSequenced(item).first + toSequenced(item).indexes.length - 1 : 0;
  }

  /**
   * Records where runs put incidents' versions. A record's content is fixed by its key (a version
   * is in exactly one leaf, and a run never changes), and records are only written for runs
   * already stored: so a repeat — by this sequencer after a crash, or by another settling the
   * same run — writes the same bytes or nothing.
   */
  async putSequenced(records: readonly SequencedVersions[]): Promise<void> {
    const items = records.map((record) => ({
      ...key(seqKey(record.incidentId), record.first),
      indexes: { L: record.indexes.map((i) => ({ N: String(i) })) },
    }));
    await Promise.all(items.map((item) => putIfAbsent(this.db, this.table, item, "sk")));
  }

  /** The leaf index of one version of an incident, or null while it is not in the log. */
  async indexOf(incidentId: string, version: number): Promise<number | null> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: "pk = :p AND sk <= :v",
        ExpressionAttributeValues: { ":p": { S: seqKey(incidentId) }, ":v": { N: String(version) } },
        ScanIndexForward: false,
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    const item = out.Items?.[0];
    if (!item) return null;
    const record = toSequenced(item);
    return record.indexes[version - record.first] ?? null;
  }

  /**
   * The leaf index of each sequenced version of an incident in (after, last]: reads only the
   * seq# records that cover that range (newest first, stopping at the one holding after + 1),
   * so a page of a long incident costs what it shows.
   */
  async incidentIndexes(
    incidentId: string,
    range: { after: number; last: number } = { after: 0, last: Number.MAX_SAFE_INTEGER },
  ): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (range.last <= range.after) return out;
    const pages = paginateQuery(
      { client: this.db },
      {
        TableName: this.table,
        KeyConditionExpression: "pk = :p AND sk <= :l",
        ExpressionAttributeValues: { ":p": { S: seqKey(incidentId) }, ":l": { N: String(range.last) } },
        ScanIndexForward: false,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const record = toSequenced(item);
        for (const [i, index] of record.indexes.entries()) {
          const version = record.first + i;
          if (version > range.after && version <= range.last) out.set(version, index);
        }
        if (record.first <= range.after + 1) return out;
      }
    }
    return out;
  }

  // ── Sequencer bookkeeping ────────────────────────────────────────────────────────────────

  /** Every leaf below this size has its seq# items, full tiles and entry bundles stored. */
  async settledSize(): Promise<number> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(SEQUENCER, 0), ConsistentRead: true }),
    );
    return Number(out.Item?.size?.N ?? 0);
  }

  /** Moves the settled size forward (never back: a slower sequencer's older news is ignored). */
  async advanceSettledSize(size: number): Promise<void> {
    await advanceNumber(this.db, this.table, key(SEQUENCER, 0), "size", size);
  }

  /** Where the scheduled catch-up starts reading commits (epoch ms), or null before its first run. */
  async catchUpPosition(): Promise<number | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(CATCH_UP, 0), ConsistentRead: true }),
    );
    return out.Item?.from?.N ? Number(out.Item.from.N) : null;
  }

  /** Moves the catch-up position forward (never back: an older run finishing late changes nothing). */
  async advanceCatchUpPosition(from: number): Promise<void> {
    await advanceNumber(this.db, this.table, key(CATCH_UP, 0), "from", from);
  }

  // ── Tiles ────────────────────────────────────────────────────────────────────────────────

  /** A full hash tile (256 hashes of 32 bytes), or null if that tile is not full yet. */
  async fullTile(level: number, index: number): Promise<Uint8Array | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(tileKey(level), index), ConsistentRead: true }),
    );
    return out.Item?.hashes?.B ?? null;
  }

  /** Stores a full tile and its root once; the same bytes again are a no-op. */
  async putFullTile(level: number, index: number, hashes: Uint8Array, root: Uint8Array): Promise<void> {
    // The tile goes in last: its presence says the root (and, at level 0, the entry bundle) is
    // stored too, so a sequencer that died in between rebuilds what is missing.
    await this.putOnce({ ...key(tileRootKey(level), index), root: { B: root } });
    await this.putOnce({ ...key(tileKey(level), index), hashes: { B: hashes } });
  }

  /** Roots of the full tiles of a level with index in [from, to): the entries of the tile above. */
  async tileRoots(level: number, from: number, to: number): Promise<Uint8Array[]> {
    const roots: Uint8Array[] = [];
    if (to <= from) return roots;
    let start: QueryCommandInput["ExclusiveStartKey"];
    do {
      const out = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: "pk = :p AND sk BETWEEN :a AND :b",
          ExpressionAttributeValues: {
            ":p": { S: tileRootKey(level) },
            ":a": { N: String(from) },
            ":b": { N: String(to - 1) },
          },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of out.Items ?? []) roots.push(item.root?.B ?? new Uint8Array());
      start = out.LastEvaluatedKey;
    } while (start);
    return roots;
  }

  async fullEntryBundle(index: number): Promise<Uint8Array | null> {
    const out = await this.db.send(
      new GetItemCommand({ TableName: this.table, Key: key(ENTRIES, index), ConsistentRead: true }),
    );
    return out.Item?.bundle?.B ?? null;
  }

  async putFullEntryBundle(index: number, bundle: Uint8Array): Promise<void> {
    await this.putOnce({ ...key(ENTRIES, index), bundle: { B: bundle } });
  }

  private async putOnce(item: Item): Promise<void> {
    await putIfAbsent(this.db, this.table, item, "sk");
  }
}

function toCheckpoint(item: Item): StoredCheckpoint {
  return { size: Number(item.sk?.N), root: item.root?.S ?? "", text: item.text?.S ?? "" };
}

function toRun(item: Item): LeafRun {
  return {
    start: Number(item.sk?.N),
    leaves: (item.leaves?.L ?? []).map((v) => JSON.parse(v.S ?? "") as LeafRecord),
  };
}

function toSequenced(item: Item): SequencedVersions {
  return {
    incidentId: (item.pk?.S ?? "").slice("seq#".length),
    first: Number(item.sk?.N),
    indexes: (item.indexes?.L ?? []).map((v) => Number(v.N)),
  };
}
