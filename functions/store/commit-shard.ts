/**
 * The events table's sharded index of commits by time (AWS; the sequencer's scheduled catch-up,
 * functions/log/incident-lister.ts). One partition key value would take every append of the
 * archive (DynamoDB gives one partition about 1,000 writes a second), so each commit names one
 * of COMMIT_SHARDS partitions, chosen from its key: a retried put of the same commit lands in
 * the same shard, and the catch-up queries every shard in parallel and merges.
 *
 * The count is fixed: changing it would move no stored commit, and a reader that asked fewer
 * shards would miss commits. Raise it only with a new index name.
 */
export const COMMIT_SHARD_INDEX = {
  name: "byCommitShard",
  partitionKey: "commitShard",
  sortKey: "lastRecordedAt",
} as const;

export const COMMIT_SHARDS = 16;

/** Every shard's key value, as the catch-up asks them. */
export function commitShardValues(): string[] {
  return Array.from({ length: COMMIT_SHARDS }, (_, n) => String(n).padStart(2, "0"));
}

/** The shard of one commit: FNV-1a of `incidentId#version`, so one busy incident spreads too. */
export function commitShardOf(incidentId: string, version: number): string {
  let hash = 0x811c9dc5;
  const text = `${incidentId}#${version}`;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return String(hash % COMMIT_SHARDS).padStart(2, "0");
}
