import { generateKeyPairSync } from "node:crypto";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { leafHashOf } from "../../events/transparency/leaf.js";
import { rootOf } from "../../events/transparency/merkle.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createLogWriter } from "../../functions/log/log-service.js";
import { type LeafRecord, LogStore } from "../../functions/log/log-store.js";
import { keySigner, type LogSigner } from "../../functions/log/signer.js";
import { silentLogger } from "../../functions/logger.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { AP, call, casualties, opened, post } from "../support/archive.js";

export const ORIGIN = "test.example/incident-ledger";
export const testSigner = (): LogSigner => keySigner(ORIGIN, generateKeyPairSync("ed25519").privateKey);

let tableCount = 0;

/** A fresh log table beside the archive's own, for a sequencer the test drives by hand. */
export async function freshLogTable(archive: LocalServer): Promise<string> {
  tableCount += 1;
  const name = `test-log-${process.pid}-${tableCount}`;
  const db = createDynamoClient(archive.dynamoEndpoint);
  await createTables(db, { ...archive.tables, log: name });
  db.destroy();
  return name;
}

export function writerOn(archive: LocalServer, db: DynamoDBClient, table: string, signer = testSigner()) {
  const store = new LogStore(db, table);
  return { store, ...createLogWriter({ store, events: archive.ledger.events, signer, log: silentLogger }) };
}

/** Thrown by the faulty client: the process "dies" at this call. */
export class CrashError extends Error {
  override name = "CrashError";
}

/**
 * A DynamoDB client that dies at its `at`-th call: before the call reaches the store
 * ("before") or after the store did it but before the answer arrives ("after").
 */
export function crashingClient(db: DynamoDBClient, at: number, when: "before" | "after") {
  let calls = 0;
  const writes: number[] = [];
  const faulty = Object.create(db) as DynamoDBClient;
  const send = async (command: unknown) => {
    calls += 1;
    if (/^(Put|Update)Item/.test((command as object).constructor.name)) writes.push(calls);
    if (calls === at && when === "before") throw new CrashError(`crash before call ${at}`);
    // biome-ignore lint/suspicious/noExplicitAny: the wrapper forwards any command unchanged.
    const out = await db.send(command as any);
    if (calls === at && when === "after") throw new CrashError(`crash after call ${at}`);
    if (calls > at) throw new CrashError("already dead");
    return out;
  };
  (faulty as unknown as { send: typeof send }).send = send;
  /** `writes`: the calls that changed the store. */
  return { client: faulty, calls: () => calls, writes: () => [...writes] };
}

export async function allLeaves(store: LogStore, size = Number.MAX_SAFE_INTEGER): Promise<LeafRecord[]> {
  const out: LeafRecord[] = [];
  for await (const leaf of store.leaves(0, size)) out.push(leaf);
  return out;
}

/** Appends events to several incidents through the HTTP API; returns how many were stored. */
export async function appendEvents(base: string, incidents: string[], perIncident: number): Promise<number> {
  let stored = 0;
  await Promise.all(
    incidents.map(async (id) => {
      const first = await post(base, id, opened());
      if (first.status !== 201) throw new Error(`open ${id}: ${first.status}`);
      stored += 1;
      let left = perIncident - 1;
      while (left > 0) {
        const n = Math.min(25, left);
        const batch = Array.from({ length: n }, (_, i) =>
          casualties({ killed: { value: left - i, qualifier: "at-least" } }, `Source ${i % 5}`),
        );
        const answer = await post(base, id, n === 1 ? batch[0] : { events: batch });
        if (answer.status !== 201) throw new Error(`append ${id}: ${answer.status}`);
        stored += n;
        left -= n;
      }
    }),
  );
  return stored;
}

/** Every stored event, read through the public API (`GET /incidents/{id}/events`). */
export async function eventsFromApi(base: string, incidents: string[]) {
  const events: { incidentId: string; version: number; eventId: string; hash: string }[] = [];
  for (const id of incidents) {
    let after = 0;
    for (;;) {
      const page = await call(base, "GET", `/incidents/${id}/events?after=${after}&limit=500`);
      if (page.status !== 200) throw new Error(`events of ${id}: ${page.status}`);
      events.push(...page.body.items);
      if (page.body.next === null) break;
      after = page.body.next;
    }
  }
  return events;
}

/**
 * The test's own check of a log against the stored events: gapless, each event exactly once,
 * each incident's versions in order, and the root recomputed from the events' own fields.
 */
export function checkLogAgainstEvents(
  leaves: readonly LeafRecord[],
  events: readonly { incidentId: string; version: number; eventId: string; hash: string }[],
) {
  const problems: string[] = [];
  leaves.forEach((leaf, i) => {
    if (leaf.index !== i) problems.push(`leaf ${i} says index ${leaf.index}`);
  });
  const byKey = new Map(events.map((e) => [`${e.incidentId}@${e.version}`, e]));
  const seen = new Set<string>();
  const lastVersion = new Map<string, number>();
  for (const leaf of leaves) {
    const key = `${leaf.incidentId}@${leaf.version}`;
    if (seen.has(key)) problems.push(`${key} is in the log twice`);
    seen.add(key);
    const event = byKey.get(key);
    if (!event) problems.push(`${key} is in the log but not stored`);
    else if (event.eventId !== leaf.eventId || event.hash !== leaf.hash)
      problems.push(`${key} differs from its event`);
    if ((lastVersion.get(leaf.incidentId) ?? 0) !== leaf.version - 1) problems.push(`${key} is out of order`);
    lastVersion.set(leaf.incidentId, leaf.version);
  }
  for (const key of byKey.keys()) if (!seen.has(key)) problems.push(`${key} is stored but not in the log`);
  // The root, from the events as the API serves them, in the order of the log.
  const root = rootOf(
    leaves.map((leaf) => {
      const e = byKey.get(`${leaf.incidentId}@${leaf.version}`) ?? leaf;
      return leafHashOf({ incidentId: e.incidentId, version: e.version, eventId: e.eventId, hash: e.hash });
    }),
  );
  return { problems, root };
}

export { AP };
