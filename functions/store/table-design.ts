/**
 * The tables' keys, shared by the CDK stack and by the local server that creates them in
 * dynalite, so both stores have the same shape.
 *
 * events  — one item per *commit* (an append of 1–25 events): pk `incidentId`, sk `version`
 *           = the commit's first version. Immutable: only ever put if absent.
 * claims  — one item per client `eventId`: which incident and commit slot it is reserved for.
 *           Mutable bookkeeping, kept apart so IAM can forbid updates on events.
 * views   — one item per incident: the projected summary, its fold state, and listing keys
 *           for the `byActivity` index behind `GET /incidents`.
 * log     — the transparency log: pk `pk` (S) names a kind of item (leaf runs, tiles,
 *           checkpoints, sequencer bookkeeping, releases), sk `sk` (N) orders items of a kind.
 *           See functions/log/log-store.ts.
 */
export const EVENTS_KEYS = { partitionKey: "incidentId", sortKey: "version" } as const;
export const CLAIMS_KEYS = { partitionKey: "eventId" } as const;
export const VIEWS_KEYS = { partitionKey: "incidentId" } as const;
export const LOG_KEYS = { partitionKey: "pk", sortKey: "sk" } as const;
/** The finding index: pk names a list (a word, a source, a year, a grid cell), sk orders its entries. */
export const SEARCH_KEYS = { partitionKey: "pk", sortKey: "sk" } as const;
export const ACTIVITY_INDEX = { name: "byActivity", partitionKey: "listPk", sortKey: "activity" } as const;
/**
 * Attributes the listing index carries: what its filters read, and the version. Not the
 * summary: every view write would copy it, large as summaries are, into the index; a page of the listing
 * reads its summaries from the views with one BatchGetItem instead (ViewStore.list).
 */
export const ACTIVITY_INDEX_ATTRIBUTES = ["kind", "country", "contested", "version"] as const;
/** The value of `listPk` on every view: one listing partition (see README, "Scale"). */
export const LIST_PARTITION = "incident";
/**
 * The editorial index's items in the views table (functions/editorial) end their keys with one
 * of these, which no incident id has: the only views-table items the projector updates.
 */
export const EDITORIAL_INDEX_SUFFIXES = ["#links-in", "#links-out", "#attributions"] as const;
/**
 * The events table's index of commits by time (AWS only; the sequencer's scheduled catch-up):
 * every commit item already carries `itemType` = "commit" and `lastRecordedAt`, so it costs the
 * write path nothing but the index write. Keys only: the catch-up needs incident ids.
 */
export const COMMIT_TIME_INDEX = {
  name: "byCommitTime",
  partitionKey: "itemType",
  sortKey: "lastRecordedAt",
} as const;
/** The value of `itemType` on every commit; the stream filter matches on it. */
export const COMMIT_ITEM_TYPE = "commit";

/**
 * disclosures — the sealed values beside the chain (functions/people): pk `incidentId`, sk `key`
 *           = eventId + JSON Pointer + "#" + the commitment's digest. Never the events table.
 * audit    — every restricted read (who, which disclosures, when): pk `incidentId`, sk `at`.
 *           Put only: readers' code can add a record, never change one.
 */
export const DISCLOSURES_KEYS = { partitionKey: "incidentId", sortKey: "key" } as const;
export const AUDIT_KEYS = { partitionKey: "incidentId", sortKey: "at" } as const;
/**
 * desk-sessions — the desk's sessions ended by sign-out before their expiry: pk `sessionId`,
 *           removed by the table's TTL on `expiresAt` (epoch seconds) once the session would have ended.
 */
export const DESK_SESSIONS_KEYS = { partitionKey: "sessionId" } as const;
export const DESK_SESSIONS_TTL = "expiresAt";
/** The revoked sessions' table: given, else named after the events table. */
export const deskSessionsTable = (names: TableNames): string =>
  names.deskSessions ?? `${names.events}-desk-sessions`;
/** The people tables' names: given, else named after the events table (so every archive has them). */
export function peopleTables(names: TableNames): { disclosures: string; audit: string } {
  return {
    disclosures: names.disclosures ?? `${names.events}-disclosures`,
    audit: names.audit ?? `${names.events}-audit`,
  };
}

export interface TableNames {
  events: string;
  claims: string;
  views: string;
  /** The transparency log's table (optional so that tools which never touch the log can omit it). */
  log?: string;
  /** The sealed values' table and the restricted reads' audit (default: peopleTables). */
  disclosures?: string;
  audit?: string;
  /** The finding index (functions/finding/search-index.ts); optional like the log's. */
  search?: string;
  /** The desk's revoked sessions (default: deskSessionsTable). */
  deskSessions?: string;
}

export function tableNamesFromEnv(env: NodeJS.ProcessEnv, prefix = "incident-ledger"): TableNames {
  return {
    events: env.EVENTS_TABLE ?? `${prefix}-events`,
    claims: env.CLAIMS_TABLE ?? `${prefix}-claims`,
    views: env.VIEWS_TABLE ?? `${prefix}-views`,
    log: env.LOG_TABLE ?? `${prefix}-log`,
    // Absent: named after the events table (peopleTables).
    ...(env.DISCLOSURES_TABLE ? { disclosures: env.DISCLOSURES_TABLE } : {}),
    ...(env.AUDIT_TABLE ? { audit: env.AUDIT_TABLE } : {}),
    ...(env.DESK_SESSIONS_TABLE ? { deskSessions: env.DESK_SESSIONS_TABLE } : {}),
    search: env.SEARCH_TABLE ?? `${prefix}-search`,
  };
}
