import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Mentions } from "../../events/finding/search-doc.js";
import type { StoredEvent } from "../../events/stored-event.js";
import type { Summary } from "../../events/summarize.js";
import { SearchIndex } from "../../functions/finding/search-index.js";
import { type LocalStore, listenDynalite } from "../../functions/local/dynalite-store.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { listed } from "./finding-kit.js";

/**
 * The finding index's counts of report words (functions/finding/search-index.ts) when a
 * projection's index update failed, and when two writers hold different docs: what the events
 * say is counted once, and a retracted quote's words go.
 */
let store: LocalStore;
let db: DynamoDBClient;
const TABLE = "counts-search";
const ID = "counts-ferry-2024";

const events: StoredEvent[] = [];
const summaries = new Map<number, Summary>();
let current = 0;
const report = (version: number, type: string, data: Record<string, unknown>) =>
  ({
    incidentId: ID,
    version,
    eventId: `counts-${version}`,
    type,
    source: { publisher: "Test Wire" },
    attributedTo: { name: "A. Ferryman" },
    recordedAt: `2024-01-01T00:00:0${version}.000Z`,
    data,
  }) as unknown as StoredEvent;

/** A summary at `version` that shows no quote: the words come from the events alone. */
function at(version: number, extra: Record<string, unknown> = {}): void {
  summaries.set(version, {
    incidentId: ID,
    version,
    title: "Ferry terminal",
    kind: "strike",
    ...extra,
  } as unknown as Summary);
  current = version;
}

function index(): SearchIndex {
  return new SearchIndex(
    db,
    TABLE,
    async () => summaries.get(current) ?? null,
    async (_id, eventId) => events.find((e) => e.eventId === eventId) ?? null,
    async function* (_id, after) {
      for (const event of events) if (event.version > after) yield event;
    },
  );
}

const found = (word: string) => listed(db, TABLE, `t#${word}`);

beforeAll(async () => {
  store = await listenDynalite({ host: "127.0.0.1", port: 0 });
  db = createDynamoClient(store.endpoint);
  await createTables(db, {
    events: "counts-events",
    claims: "counts-claims",
    views: "counts-views",
    search: TABLE,
  });
});
afterAll(async () => {
  db?.destroy();
  await store?.close();
});

describe("the finding index's word counts", () => {
  it("given projections whose index update failed, when the next one comes, then it reads the events it missed", async () => {
    const a = index();
    events.push(report(1, "IncidentOpened", { title: "Ferry terminal" }));
    at(1);
    await a.update(ID, undefined, new Mentions(0));
    // Version 2's projection saved its view, then failed to index: the redelivered record
    // brings no events, and the next projection folds from version 3.
    events.push(report(2, "StatementMade", { quote: "A zeppelin hangar burned.", stance: "neutral" }));
    at(2);
    await a.update(ID);
    expect(await found("zeppelin")).toEqual([ID]);
    events.push(report(3, "ReportRetracted", { targetEventId: "counts-2", reason: "misheard" }));
    at(3);
    // A fold that began after the doc's version: its mentions do not reach back, the events do.
    const late = new Mentions(3);
    await a.update(ID, undefined, late);
    expect(await found("zeppelin")).toEqual([]);
  });

  it("given a writer whose doc is older than the table's, then it starts from the table's and counts nothing twice", async () => {
    const stale = index();
    const other = index();
    events.push(report(4, "StatementMade", { quote: "The walrus statue fell.", stance: "neutral" }));
    at(4);
    await stale.update(ID, undefined, withEvents(4, 4));
    expect(await found("walrus")).toEqual([ID]);
    // Another writer folds the retraction of that statement.
    events.push(report(5, "ReportRetracted", { targetEventId: "counts-4", reason: "wrong incident" }));
    at(5);
    await other.update(ID, undefined, withEvents(5, 5));
    expect(await found("walrus")).toEqual([]);
    // The first writer, its doc still at 4, folds version 6 only.
    events.push(report(6, "StatementMade", { quote: "Routine words.", stance: "neutral" }));
    at(6);
    await stale.update(ID, undefined, withEvents(6, 6));
    expect(await found("walrus")).toEqual([]);
    expect(await found("routine")).toEqual([ID]);
    // A new date rewrites every entry from the counts: the retracted words are not among them.
    events.push(report(7, "IncidentRevised", { occurredOn: "2024-01-02" }));
    at(7, { occurredOn: "2024-01-02" });
    await stale.update(ID, undefined, withEvents(7, 7));
    expect(await found("walrus")).toEqual([]);
    expect(await found("routine")).toEqual([ID]);
  });
});

describe("the finding index's doc item", () => {
  it("given an incident naming hundreds of long names, then its doc fits in one item, its sources all kept", async () => {
    const id = "counts-crowded-2024";
    const crowded = new SearchIndex(
      db,
      TABLE,
      async () => ({ incidentId: id, version: 1, title: "Crowded", kind: "strike" }) as unknown as Summary,
      async () => null,
      async function* () {},
    );
    const mentions = new Mentions(0);
    for (let i = 0; i < 500; i++)
      mentions.sources.add(Array.from({ length: 30 }, (_, w) => `name${i}word${w}`).join(" "));
    await crowded.update(id, undefined, mentions);
    expect(await crowded.indexedVersion(id)).toBe(1);
    expect(await listed(db, TABLE, `s#${[...mentions.sources][499]}`)).toEqual([id]);
  });
});

/** The mentions of a fold of versions from…to, as the projector collects them. */
function withEvents(from: number, to: number): Mentions {
  const mentions = new Mentions(from - 1);
  for (const event of events) if (event.version >= from && event.version <= to) mentions.note(event);
  return mentions;
}
