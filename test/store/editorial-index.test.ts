import { type DynamoDBClient, GetItemCommand, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AttributionRow, LinkRow } from "../../events/editorial.js";
import { attributionsKey, EditorialIndex } from "../../functions/editorial/editorial-index.js";
import { type LocalStore, listenDynalite } from "../../functions/local/dynalite-store.js";
import { createTables } from "../../functions/store/create-tables.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";

let store: LocalStore;
let db: DynamoDBClient;
let index: EditorialIndex;
const VIEWS = "editorial-views";

beforeAll(async () => {
  store = await listenDynalite({ host: "127.0.0.1", port: 0 });
  db = createDynamoClient(store.endpoint);
  await createTables(db, { events: "editorial-events", claims: "editorial-claims", views: VIEWS });
  index = new EditorialIndex(db, VIEWS);
});
afterAll(async () => {
  db?.destroy();
  await store?.close();
});

const by = { name: "editors" };
const assessed = (version: number, certainty: AttributionRow["certainty"]): AttributionRow => ({
  eventId: `attr-${version}`,
  version,
  recordedAt: `2024-01-01T00:00:0${version}.000Z`,
  attributedTo: by,
  perpetrator: { name: "Unit A" },
  certainty,
});
const linked = (version: number, relation: LinkRow["relation"]): LinkRow => ({
  eventId: `link-${version}`,
  version,
  recordedAt: `2024-01-01T00:00:0${version}.000Z`,
  attributedTo: by,
  otherIncidentId: "other-incident",
  relation,
});

describe("the editorial index keeps each entry's latest version", () => {
  it("given a later row recorded first, when an earlier fold records its older row, then the later one stays", async () => {
    const id = "race-incident";
    await index.record(id, { links: [linked(5, "same-event")], attributions: [assessed(5, "high")] });
    // What a projection that lost the race writes after the newer one.
    await index.record(id, { links: [linked(3, "related")], attributions: [assessed(3, "low")] });
    expect(await index.attributions(id)).toMatchObject([{ version: 5, certainty: "high" }]);
    expect(await index.outgoing(id)).toMatchObject([{ version: 5, relation: "same-event" }]);
    expect(await index.incoming("other-incident")).toMatchObject([
      { fromIncidentId: id, version: 5, relation: "same-event" },
    ]);
    // A replay of the same version changes nothing; a later one replaces it.
    await index.record(id, { links: [], attributions: [assessed(5, "high")] });
    await index.record(id, { links: [], attributions: [assessed(7, "medium")] });
    expect(await index.attributions(id)).toMatchObject([{ version: 7, certainty: "medium" }]);
  });

  it("given an entry written before entries carried their version, then it is read, and any row replaces it", async () => {
    const id = "first-layout-incident";
    await db.send(
      new PutItemCommand({
        TableName: VIEWS,
        Item: {
          incidentId: { S: attributionsKey(id) },
          itemType: { S: "attributions" },
          rows: { M: { "Unit A": { S: JSON.stringify(assessed(6, "high")) } } },
        },
      }),
    );
    expect(await index.attributions(id)).toMatchObject([{ version: 6, certainty: "high" }]);
    await index.record(id, { links: [], attributions: [assessed(8, "low")] });
    expect(await index.attributions(id)).toMatchObject([{ version: 8, certainty: "low" }]);
    const item = await db.send(
      new GetItemCommand({ TableName: VIEWS, Key: { incidentId: { S: attributionsKey(id) } } }),
    );
    expect(item.Item?.rows?.M?.["Unit A"]?.M?.v).toEqual({ N: "8" });
  });

  it("given many folds at once making the same new item, then every entry is kept", async () => {
    const id = "crowded-incident";
    const rows = Array.from({ length: 12 }, (_, i) => ({
      ...assessed(i + 1, "medium"),
      perpetrator: { name: `Unit ${i}` },
    }));
    await Promise.all(rows.map((row) => index.record(id, { links: [], attributions: [row] })));
    expect((await index.attributions(id))?.map((r) => r.perpetrator.name).sort()).toEqual(
      rows.map((r) => r.perpetrator.name).sort(),
    );
  });
});
