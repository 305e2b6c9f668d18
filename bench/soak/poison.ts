import type { DynamoDBRecord } from "aws-lambda";
import { createLedger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/logger.js";
import { createStreamHandler } from "../../functions/projector/stream-handler.js";
import type { Item } from "../../functions/store/commit-item.js";
import { createTables } from "../../functions/store/create-tables.js";
import { startDynalite } from "../lib/dynamo.js";
import { openedEnvelope } from "../lib/fixtures.js";
import { appendOne } from "../lib/seed.js";

/**
 * A poisoned stream record (an INSERT whose keys and image carry no incidentId) handed to the
 * projector's stream handler in one batch with a good record: the handler must name exactly the
 * poisoned one in batchItemFailures (so the event source mapping retries, bisects and parks
 * only it) and still project the good one.
 */
export async function poisonedRecord(): Promise<{
  failuresReported: number;
  namedTheRecord: boolean;
  goodRecordProjected: boolean;
}> {
  const dynamo = await startDynalite();
  const db = dynamo.client();
  const tables = { events: "poison-events", claims: "poison-claims", views: "poison-views" };
  try {
    await createTables(db, tables);
    const committed: Item[] = [];
    const ledger = createLedger({ db, tables, log: silentLogger, onCommit: (item) => committed.push(item) });
    await appendOne(ledger.events, "poison-good", openedEnvelope());
    const good = committed[0] as Item;
    const { incidentId: _dropped, ...withoutId } = good;
    const handler = createStreamHandler(ledger.projector, silentLogger);
    const answer = await handler({ Records: [record("1", good), record("2", withoutId, false)] });
    const failures = answer.batchItemFailures.map((f) => f.itemIdentifier);
    const view = await ledger.views.getSummary("poison-good");
    return {
      failuresReported: failures.length,
      namedTheRecord: failures.length === 1 && failures[0] === "2",
      goodRecordProjected: view?.version === 1,
    };
  } finally {
    await dynamo.close();
  }
}

function record(sequence: string, image: Item, keyed = true): DynamoDBRecord {
  return {
    eventID: `soak-${sequence}`,
    eventName: "INSERT",
    eventSource: "aws:dynamodb",
    dynamodb: {
      Keys: (keyed
        ? { incidentId: image.incidentId, version: image.version }
        : { version: image.version }) as never,
      NewImage: image as never,
      SequenceNumber: sequence,
      StreamViewType: "NEW_IMAGE",
    },
  };
}
