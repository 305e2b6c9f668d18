import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverEventId } from "../../events/server-ids.js";
import type { StoredEvent } from "../../events/stored-event.js";
import { CHART_MARKS_KEPT, fold, withoutUnsaved } from "../../events/summary.js";
import { MAX_CHART_POINTS } from "../../functions/http/pages/chart-model.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { SNAPSHOT_EVERY } from "../../functions/store/view-store.js";
import { call, post, startArchive } from "../support/archive.js";
import { expectBounded } from "../support/bounded.js";
import { checkedSummaryJson } from "../support/contract-oracle.js";
import { longEnvelopes, sealLong, seedCommits } from "../support/long-history.js";

/**
 * One incident of a few thousand events, written straight into the events table in chunks
 * and projected after each chunk (as a stream would), then read through the real server.
 */
const ID = "long-siege-2024";
const LENGTH = 3_000;
const CHUNK = 250;

let archive: LocalServer;
let db: DynamoDBClient;
let history: StoredEvent[];

/** The summary the pure fold gives, checked against the contract's oracle. */
const reference = (events: readonly StoredEvent[]) => checkedSummaryJson(ID, events);
const text = async (path: string) => {
  const response = await fetch(`${archive.url}${path}`);
  return { status: response.status, body: await response.text() };
};

beforeAll(async () => {
  archive = await startArchive();
  db = createDynamoClient(archive.dynamoEndpoint);
  history = sealLong(ID, longEnvelopes(ID, LENGTH, 7));
  for (let i = 0; i < history.length; i += CHUNK) {
    await seedCommits(db, archive.tables.events, history.slice(i, i + CHUNK));
    await archive.ledger.projector.project(ID);
  }
}, 120_000);

afterAll(async () => {
  db?.destroy();
  await archive?.close();
});

describe("a long incident", () => {
  it("serves the summary the contract defines, from a bounded projection", async () => {
    const { body } = await text(`/incidents/${ID}`);
    expect(body).toBe(reference(history));
    const state = await archive.ledger.views.getState(ID);
    expect(state?.version).toBe(LENGTH);
    expectBounded(state as NonNullable<typeof state>);
    // Built in chunks or folded afresh from every event: the same state (DESIGN, guarantee 5).
    expect(state).toEqual(withoutUnsaved(fold(ID, history)));
    // The view item stays far from DynamoDB's 400 KB.
    expect(Buffer.byteLength(body)).toBeLessThan(100_000);
  });

  it("keeps snapshots equal to a fresh fold of the events up to them", async () => {
    const at = 17 * SNAPSHOT_EVERY;
    expect(await archive.ledger.views.getSnapshot(ID, at)).toEqual(
      withoutUnsaved(fold(ID, history.slice(0, at))),
    );
  });

  it("answers a version and an asOf deep in the history as a fresh fold of the events up to it", async () => {
    for (const version of [1, 99, 100, 1_234, 2_999]) {
      const { status, body } = await text(`/incidents/${ID}?version=${version}`);
      expect(status, `version ${version}`).toBe(200);
      expect(body, `version ${version}`).toBe(reference(history.slice(0, version)));
    }
    const between = new Date(Date.parse((history[1_700] as StoredEvent).recordedAt) - 500).toISOString();
    expect((await text(`/incidents/${ID}?asOf=${between}`)).body).toBe(reference(history.slice(0, 1_700)));
  });

  it("brings back a source's figure from deep in the history when its later reports are retracted", async () => {
    // A source's reports of `killed`, newest first; retract all but its oldest one.
    const source = "Official 07";
    const reports = history.filter(
      (e) =>
        e.type === "CasualtiesReported" &&
        e.attributedTo?.name === source &&
        "killed" in e.data.figures &&
        !history.some((r) => r.type === "ReportRetracted" && r.data.targetEventId === e.eventId),
    );
    expect(reports.length).toBeGreaterThan(10);
    const keep = reports[2] as StoredEvent;
    const retract = reports.slice(3).map((e, i) => ({
      eventId: `long-retract-${i}`,
      type: "ReportRetracted",
      source: { publisher: "Associated Press" },
      attributedTo: { name: source },
      data: { targetEventId: e.eventId, reason: "superseded by a recount" },
    }));
    for (let i = 0; i < retract.length; i += 25)
      expect((await post(archive.url, ID, { events: retract.slice(i, i + 25) })).status).toBe(201);
    const all: StoredEvent[] = [...history];
    for (let after = LENGTH; ; ) {
      const page = await call(archive.url, "GET", `/incidents/${ID}/events?after=${after}&limit=500`);
      all.push(...(page.body.items as StoredEvent[]));
      if (page.body.next === null) break;
      after = page.body.next;
    }
    const { body } = await text(`/incidents/${ID}`);
    const row = JSON.parse(body).casualties.killed.bySource.find(
      (r: { attributedTo: { name: string } }) => r.attributedTo.name === source,
    );
    expect(row.eventId).toBe(keep.eventId);
    expect(row.version).toBeLessThan(LENGTH / 2);
    expect(body).toBe(reference(all));
    expect(await archive.ledger.views.getState(ID)).toEqual(withoutUnsaved(fold(ID, all)));
  });

  it("serves a bounded incident page: under 300 KB, a page of the timeline, a bounded chart", async () => {
    const { status, body } = await text(`/view/${ID}`);
    expect(status).toBe(200);
    expect(Buffer.byteLength(body)).toBeLessThan(300_000);
    expect(body.match(/<li class="event/g)?.length).toBe(50);
    expect(body).toContain("older events →");
    for (const category of ["killed", "injured"]) {
      const chart = body.slice(body.indexOf(`data-category="${category}"`));
      const points = [
        ...chart.slice(0, chart.indexOf("</figure>")).matchAll(/data-source="([^"]*)"[^>]*data-version/g),
      ];
      const perSource = new Map<string, number>();
      for (const [, source] of points)
        perSource.set(source as string, (perSource.get(source as string) ?? 0) + 1);
      expect(perSource.size, category).toBeGreaterThan(0);
      for (const [source, n] of perSource)
        expect(n, `${category} ${source}`).toBeLessThanOrEqual(CHART_MARKS_KEPT);
      expect(points.length, category).toBeLessThanOrEqual(MAX_CHART_POINTS);
    }
    const past = await text(`/view/${ID}?version=1234&before=600`);
    expect(past.status).toBe(200);
    expect(Buffer.byteLength(past.body)).toBeLessThan(300_000);
    expect(past.body).toContain(`id="ev-${serverEventId(ID, 599)}"`);
    expect(past.body).not.toContain(`id="ev-${serverEventId(ID, 600)}"`);
  });

  it("checks on the page only what was added since the last full check, which /verify records", async () => {
    const before = await text(`/view/${ID}`);
    expect(before.body).toContain('data-integrity="partial"');
    const verify = await call(archive.url, "GET", `/incidents/${ID}/verify`);
    expect(verify.body.ok).toBe(true);
    const after = await text(`/view/${ID}`);
    expect(after.body).toContain('data-integrity="ok"');
    expect(after.body).toContain(`<code data-head-hash="">${verify.body.headHash}</code>`);
  });
});
