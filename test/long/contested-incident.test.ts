import { gunzipSync } from "node:zlib";
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  paginateScan,
} from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredEvent } from "../../events/stored-event.js";
import { fold, withoutUnsaved } from "../../events/summary.js";
import type { LocalServer } from "../../functions/local/server.js";
import { silentLogger } from "../../functions/logger.js";
import { repairViews } from "../../functions/projector/view-repair.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { SNAPSHOT_EVERY } from "../../functions/store/view-store.js";
import { call, post, startArchive } from "../support/archive.js";
import { expectBounded } from "../support/bounded.js";
import { checkedSummaryJson } from "../support/contract-oracle.js";
import { emptyViewsTable } from "../support/empty-views.js";
import { CONTESTED, longEnvelopes, sealLong, seedCommits } from "../support/long-history.js";

/**
 * A contested incident of a few thousand events — hundreds of denials, assessments of old ones,
 * hundreds of retractions, some repeated — written in chunks and projected after each, as a
 * stream would. Its summary lists grow past any one item, so they spill into sealed pieces.
 */
const ID = "contested-grave-2024";
const LENGTH = 3_000;
const CHUNK = 250;
/** No stored item of an incident may come near DynamoDB's 400 KB, however contested. */
const ITEM_BOUND = 100_000;

let archive: LocalServer;
let db: DynamoDBClient;
let history: StoredEvent[];

/** The summary the pure fold gives, checked against the contract's oracle. */
const reference = (events: readonly StoredEvent[]) => checkedSummaryJson(ID, events);
const text = async (path: string) => {
  const response = await fetch(`${archive.url}${path}`);
  return { status: response.status, body: await response.text() };
};

/** An item's size as DynamoDB counts it, near enough: names plus values, in bytes. */
function itemBytes(item: Record<string, AttributeValue>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name);
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S);
    else if (value.B !== undefined) bytes += value.B.length;
    else bytes += Buffer.byteLength(JSON.stringify(value));
  }
  return bytes;
}

async function storedItems(): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  for await (const page of paginateScan({ client: db }, { TableName: archive.tables.views }))
    items.push(...(page.Items ?? []).filter((i) => i.incidentId?.S?.startsWith(ID)));
  return items;
}

async function everyEvent(): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (let after = 0; ; ) {
    const page = await call(archive.url, "GET", `/incidents/${ID}/events?after=${after}&limit=500`);
    all.push(...(page.body.items as StoredEvent[]));
    if (page.body.next === null) return all;
    after = page.body.next;
  }
}

beforeAll(async () => {
  archive = await startArchive();
  db = createDynamoClient(archive.dynamoEndpoint);
  history = sealLong(ID, longEnvelopes(ID, LENGTH, 11, CONTESTED));
  for (let i = 0; i < history.length; i += CHUNK) {
    await seedCommits(db, archive.tables.events, history.slice(i, i + CHUNK));
    await archive.ledger.projector.project(ID);
  }
}, 120_000);

afterAll(async () => {
  db?.destroy();
  await archive?.close();
});

describe("a contested incident", () => {
  it("spills its full lists into sealed pieces, and every stored item stays under a fixed bound", async () => {
    const state = await archive.ledger.views.getState(ID);
    expect(state?.spilled?.pieces.denials).toBeGreaterThan(5);
    expect(state?.spilled?.pieces.assessments).toBeGreaterThan(2);
    expect(state?.spilled?.pieces.retracted).toBeGreaterThan(0);
    expectBounded(state as NonNullable<typeof state>);
    // Built in chunks against the store or folded afresh from every event: the same state.
    expect(state).toEqual(withoutUnsaved(fold(ID, history)));
    const items = await storedItems();
    const kinds = new Map<string, number>();
    for (const item of items) {
      const kind = item.itemType?.S ?? "view";
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      expect(itemBytes(item), item.incidentId?.S).toBeLessThan(ITEM_BOUND);
    }
    expect(kinds.get("view")).toBe(1);
    expect(kinds.get("snapshot")).toBe(LENGTH / SNAPSHOT_EVERY);
    expect(kinds.get("spill")).toBeGreaterThan(10);
    // What the incident lists in full is far past one item: the summary shows the newest 100
    // of each list beside its count, and the sub-resources page the rest.
    const summary = JSON.parse(reference(history));
    expect(summary.denialCount).toBeGreaterThan(summary.denials.length);
    expect(Buffer.byteLength(reference(history))).toBeLessThan(ITEM_BOUND);
  });

  it("serves the summary the contract defines, alone and in the listing", async () => {
    const { status, body } = await text(`/incidents/${ID}`);
    expect(status).toBe(200);
    expect(body).toBe(reference(history));
    const listed = await call(archive.url, "GET", "/incidents?limit=100&contested=true");
    const item = (listed.body.items as { incidentId: string }[]).find((s) => s.incidentId === ID);
    expect(JSON.stringify(item)).toBe(reference(history));
  });

  it("answers past versions deep in the history, across snapshots and pieces, as fresh folds", async () => {
    for (const version of [150, 777, 1_234, 2_050, 2_999]) {
      const { status, body } = await text(`/incidents/${ID}?version=${version}`);
      expect(status, `version ${version}`).toBe(200);
      expect(body, `version ${version}`).toBe(reference(history.slice(0, version)));
    }
    const at = 20 * SNAPSHOT_EVERY;
    expect(await archive.ledger.views.getSnapshot(ID, at)).toEqual(
      withoutUnsaved(fold(ID, history.slice(0, at))),
    );
    expect((await text(`/view/${ID}?version=1234`)).status).toBe(200);
  });

  it("assesses and retracts sealed denials and repeats an old retraction, with the right summary", async () => {
    const retractions = history.filter((e) => e.type === "ReportRetracted");
    const retracted = new Set(retractions.map((e) => e.data.targetEventId as string));
    const liveDenials = history.filter((e) => e.type === "DenialIssued" && !retracted.has(e.eventId));
    const [assessed, withdrawn] = liveDenials as [StoredEvent, StoredEvent];
    const deepReport = history.find(
      (e) => e.type === "CasualtiesReported" && e.version < 200 && !retracted.has(e.eventId),
    ) as StoredEvent;
    const who = { source: { publisher: "Associated Press" }, attributedTo: { name: "Fact checker" } };
    const appended = [
      {
        ...who,
        eventId: "assess-sealed-denial",
        type: "ClaimAssessed",
        data: { targetEventId: assessed.eventId, verdict: "false", reasoning: "satellite imagery" },
      },
      {
        ...who,
        eventId: "retract-sealed-denial",
        type: "ReportRetracted",
        data: { targetEventId: withdrawn.eventId, reason: "withdrawn by the ministry" },
      },
      {
        ...who,
        eventId: "retract-again",
        type: "ReportRetracted",
        data: { targetEventId: retractions[0]?.data.targetEventId, reason: "repeated" },
      },
      {
        ...who,
        eventId: "retract-deep-report",
        type: "ReportRetracted",
        data: { targetEventId: deepReport.eventId, reason: "superseded" },
      },
    ];
    for (const event of appended) expect((await post(archive.url, ID, event)).status).toBe(201);
    const all = await everyEvent();
    expect(all.length).toBe(LENGTH + appended.length);
    const { body } = await text(`/incidents/${ID}`);
    expect(body).toBe(reference(all));
    // The whole lists, a page at a time, at the incident's sub-resources.
    const whole = async (path: string) => {
      const items: unknown[] = [];
      for (let cursor: string | null = ""; cursor !== null; ) {
        const page = await call(archive.url, "GET", `${path}${cursor ? `?cursor=${cursor}` : ""}`);
        items.push(...page.body.items);
        cursor = page.body.nextCursor;
      }
      return items;
    };
    const denials = (await whole(`/incidents/${ID}/denials`)) as { eventId: string; status: string }[];
    const row = denials.find((d) => d.eventId === assessed.eventId);
    expect(row?.status).toBe("false");
    expect(denials.some((d) => d.eventId === withdrawn.eventId)).toBe(false);
    const retractedIds = (await whole(`/incidents/${ID}/retractions`)) as string[];
    expect(retractedIds.filter((id) => id === retractions[0]?.data.targetEventId)).toHaveLength(1);
    expect(await archive.ledger.views.getState(ID)).toEqual(withoutUnsaved(fold(ID, all)));
  });

  it("is rebuilt from nothing by one scan into exactly the items the projector wrote: view, snapshots, pieces", async () => {
    const written = await storedItems();
    expect(written.some((i) => i.itemType?.S === "spill")).toBe(true);
    expect(written.some((i) => i.itemType?.S === "snapshot")).toBe(true);
    // Everything in the views table goes: the rebuild starts from nothing (its scan path).
    await emptyViewsTable(db, archive.tables.views);
    const report = await repairViews({ ...archive.ledger, log: silentLogger });
    expect(report.failed).toEqual([]);
    const byKey = (items: Record<string, AttributeValue>[]) =>
      new Map(items.map((i) => [i.incidentId?.S, i]));
    const rebuilt = byKey(await storedItems());
    const before = byKey(written);
    expect([...rebuilt.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [key, item] of before) {
      const again = rebuilt.get(key) as Record<string, AttributeValue>;
      if (item.state?.B) {
        // Packed states compare by what they hold (gzip bytes may differ by level or header).
        expect(gunzipSync(again.state?.B as Uint8Array).toString()).toBe(gunzipSync(item.state.B).toString());
        expect({ ...again, state: null }).toEqual({ ...item, state: null });
      } else expect(again).toEqual(item);
    }
  });

  it("is rebuilt whole by the repair sweep, pieces included, when its view and pieces are lost", async () => {
    const all = await everyEvent();
    const lost = (await storedItems()).filter((i) => i.itemType?.S !== "snapshot");
    expect(lost.some((i) => i.itemType?.S === "spill")).toBe(true);
    for (let i = 0; i < lost.length; i += 25)
      await db.send(
        new BatchWriteItemCommand({
          RequestItems: {
            [archive.tables.views]: lost
              .slice(i, i + 25)
              .map((item) => ({ DeleteRequest: { Key: { incidentId: item.incidentId as AttributeValue } } })),
          },
        }),
      );
    const report = await repairViews({ ...archive.ledger, log: silentLogger });
    expect(report.failed).toEqual([]);
    expect(report.built).toBeGreaterThanOrEqual(1);
    expect(await archive.ledger.views.getState(ID)).toEqual(withoutUnsaved(fold(ID, all)));
    expect((await text(`/incidents/${ID}`)).body).toBe(reference(all));
  });
});
