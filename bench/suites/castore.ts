import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createLedgerCore } from "../../functions/ledger-core.js";
import { createTables } from "../../functions/store/create-tables.js";
import type { TableNames } from "../../functions/store/table-design.js";
import { type CastoreStore, castoreStore, createCastoreTable, isCastoreConflict } from "../lib/castore.js";
import { startDynalite } from "../lib/dynamo.js";
import { openedEnvelope, reportEnvelope } from "../lib/fixtures.js";
import { sealIncident, storeHistory } from "../lib/history.js";
import { alternate, runLoad } from "../lib/load.js";
import type { Row } from "../lib/results.js";
import { context, ratioGoal, row } from "../lib/row.js";
import { eachLimited, envelope } from "../lib/seed.js";
import { medianOf } from "../lib/stats.js";
import type { Sizes, Suite } from "../lib/suite.js";

const CASTORE_TABLE = "castore-events";
const LENGTHS = [1, 10, 100] as const;
const WRITERS = 16;
const GROUP_KNOWN = "Peer, in-process: append with the version known vs Castore pushEvent";
const GROUP_COMMAND = "Peer, in-process: read-then-append (a command) vs Castore getAggregate + pushEvent";

/**
 * Castore (@castore/core + its DynamoDB single-table adapter) on the same dynalite, against our
 * event store (as the API Lambda composes it) with the hash chain on, both in this process, both given the same report payloads.
 */
export const castore: Suite = {
  name: "Castore",
  steps: () => 1 + LENGTHS.length,
  async run(ctx) {
    const dynamo = await startDynalite();
    const db = dynamo.client();
    const tables: TableNames = { events: "ours-events", claims: "ours-claims", views: "ours-views" };
    await createTables(db, tables);
    await createCastoreTable(db, CASTORE_TABLE);
    const peer = castoreStore(db, CASTORE_TABLE);
    const rows: Row[] = [];
    try {
      rows.push(...(await versionKnown(db, tables, peer, ctx.sizes)));
      ctx.progress.step("vs Castore: append with the version known");
      for (const length of LENGTHS) {
        rows.push(await readThenAppend(db, tables, peer, ctx.sizes, length));
        ctx.progress.step(`vs Castore: read-then-append at ${length} events per stream`);
      }
    } finally {
      await dynamo.close();
    }
    return rows;
  },
};

const payload = (i: number) => {
  const { type: _type, eventId: _id, ...rest } = reportEnvelope(i);
  return rest;
};

/** Sequential appends, one caller, each to a stream whose version the caller knows. */
async function versionKnown(db: DynamoDBClient, tables: TableNames, peer: CastoreStore, sizes: Sizes) {
  const streams = Array.from({ length: sizes.castoreStreams }, (_, k) => `known-${k}`);
  const ours = createLedgerCore({ db, tables }).events;
  const versions = { ours: new Map<string, number>(), peer: new Map<string, number>() };
  await seed(db, tables, peer, streams, 1);
  for (const id of streams) {
    versions.ours.set(id, 1);
    versions.peer.set(id, 1);
  }
  const report = envelope(reportEnvelope(1));
  const ourAppend = async (i: number) => {
    const id = streams[i % streams.length] as string;
    const expectedVersion = versions.ours.get(id) as number;
    const result = await ours.append({
      incidentId: id,
      envelopes: [report],
      recordedBy: "bench",
      expectedVersion,
      batched: false,
    });
    versions.ours.set(id, result.version);
  };
  const peerAppend = async (i: number) => {
    const aggregateId = streams[i % streams.length] as string;
    const version = (versions.peer.get(aggregateId) as number) + 1;
    await peer.pushEvent({ aggregateId, version, type: "Reported", payload: payload(i) });
    versions.peer.set(aggregateId, version);
  };
  const total = sizes.castoreOps;
  await runLoad({ total: 50, concurrency: 1, op: ourAppend });
  await runLoad({ total: 50, concurrency: 1, op: peerAppend });
  const rounds = await alternate(sizes.rounds, {
    ours: () => runLoad({ total, concurrency: 1, op: ourAppend }),
    peer: () => runLoad({ total, concurrency: 1, op: peerAppend }),
  });
  const o = medianOf(rounds.ours);
  const p = medianOf(rounds.peer);
  const common = { group: GROUP_KNOWN, unit: "ms", baselineName: "Castore pushEvent, version known" };
  return [
    row({
      ...common,
      id: "castore.known.p50",
      title: "1 caller — p50 (hash chain on)",
      subject: o.p50,
      baseline: p.p50,
      goal: ratioGoal("<=", 1.1),
    }),
    row({
      ...common,
      id: "castore.known.p99",
      title: "1 caller — p99",
      subject: o.p99,
      baseline: p.p99,
      goal: context("context"),
    }),
  ];
}

/**
 * What a command does with each store, 16 callers on distinct streams of `length` events.
 * Castore: getAggregate (reads and reduces the whole stream), then pushEvent at the next version.
 * Ours, with a cold head (a fresh event store per command, as in a cold Lambda): the append
 * reads the head (one Query, Limit 1), checks the rules and puts the commit.
 */
async function readThenAppend(
  db: DynamoDBClient,
  tables: TableNames,
  peer: CastoreStore,
  sizes: Sizes,
  length: number,
) {
  const streams = Array.from({ length: sizes.castoreStreams }, (_, k) => `command-${length}-${k}`);
  await seed(db, tables, peer, streams, length);
  const report = envelope(reportEnvelope(2));
  const ourCommand = async (i: number) => {
    const ours = createLedgerCore({ db, tables }).events;
    await ours.append({
      incidentId: streams[i % streams.length] as string,
      envelopes: [report],
      recordedBy: "bench",
      batched: false,
    });
  };
  const peerCommand = async (i: number) => {
    const aggregateId = streams[i % streams.length] as string;
    // Two callers may meet on one stream: a real command re-reads and retries, as here.
    for (let attempt = 0; ; attempt++) {
      const { aggregate } = await peer.getAggregate(aggregateId);
      try {
        await peer.pushEvent({
          aggregateId,
          version: (aggregate?.version ?? 0) + 1,
          type: "Reported",
          payload: payload(i),
        });
        return;
      } catch (error) {
        if (!isCastoreConflict(error) || attempt >= 20) throw error;
      }
    }
  };
  const total = sizes.castoreOps;
  const rounds = await alternate(sizes.rounds, {
    ours: () => runLoad({ total, concurrency: WRITERS, op: ourCommand }),
    peer: () => runLoad({ total, concurrency: WRITERS, op: peerCommand }),
  });
  const o = medianOf(rounds.ours);
  const p = medianOf(rounds.peer);
  return row({
    id: `castore.command.${length}.throughput`,
    group: GROUP_COMMAND,
    title: `${length} event${length === 1 ? "" : "s"} per stream, ${WRITERS} callers — throughput`,
    unit: "cmd/s",
    subject: o.throughput,
    baseline: p.throughput,
    baselineName: "Castore getAggregate + pushEvent",
    goal: length === 100 ? ratioGoal(">=", 3) : context("context"),
  });
}

/**
 * Both stores get the same streams: an opening event, then reports, up to `length` events.
 * Ours are written as the commit items its appends make (sealed, chained), in batches; Castore's
 * through its own pushEvent.
 */
async function seed(
  db: DynamoDBClient,
  tables: TableNames,
  peer: CastoreStore,
  streams: readonly string[],
  length: number,
) {
  await storeHistory(db, tables.events, new Map(streams.map((id) => [id, sealIncident(id, length)])));
  const { type: _t, ...openedPayload } = openedEnvelope();
  await eachLimited(streams, WRITERS, async (id) => {
    await peer.pushEvent({ aggregateId: id, version: 1, type: "IncidentOpened", payload: openedPayload });
    for (let v = 2; v <= length; v++)
      await peer.pushEvent({ aggregateId: id, version: v, type: "Reported", payload: payload(v) });
  });
}
