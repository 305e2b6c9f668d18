import { BatchWriteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { EMPTY_HEAD, type StoredEvent, sealEvents } from "../../events/stored-event.js";
import { commitToItem, type Item } from "../../functions/store/commit-item.js";
import { type Envelope, openedEnvelope, reportEnvelope } from "./fixtures.js";
import { eachLimited, envelope } from "./seed.js";

/**
 * A realistic history made fast: each incident's events sealed into the hash chain exactly as
 * the store seals them, one commit item per event (as single appends make them), written with
 * BatchWriteItem instead of 100,000 appends. Reports, statements, denials, assessments of the
 * denials and the odd retraction, so the fold does all its kinds of work.
 */
export function makeHistory(
  incidents: number,
  events: number,
  prefix = "rebuild",
): Map<string, StoredEvent[]> {
  const perIncident = Math.max(2, Math.round(events / incidents));
  const history = new Map<string, StoredEvent[]>();
  for (let k = 0; k < incidents; k++) {
    const incidentId = `${prefix}-${String(k).padStart(5, "0")}`;
    history.set(incidentId, sealIncident(incidentId, perIncident));
  }
  return history;
}

/** One incident's first `count` events, sealed into the hash chain as the store seals them. */
export function sealIncident(incidentId: string, count: number): StoredEvent[] {
  const raws: Envelope[] = [openedEnvelope(`${incidentId}-e1`)];
  for (let v = 2; v <= count; v++) raws.push(nthReport(incidentId, v));
  return sealEvents(EMPTY_HEAD, raws.map(envelope), {
    incidentId,
    recordedBy: "bench-history",
    now: "2022-04-09T00:00:00.000Z",
    newEventId: () => {
      throw new Error("every history event has an id");
    },
  });
}

function nthReport(incidentId: string, v: number): Envelope {
  const eventId = `${incidentId}-e${v}`;
  // Every 10th event assesses the last denial before it; every 25th retracts the last casualty report.
  const assess = v % 10 === 0 ? lastPlain(v, 2) : undefined;
  if (assess) {
    return {
      ...reportEnvelope(v, eventId),
      type: "ClaimAssessed",
      data: { targetEventId: `${incidentId}-e${assess}`, verdict: "disputed", reasoning: "Debris analysis." },
    };
  }
  const retract = v % 25 === 0 ? lastPlain(v, 0) : undefined;
  if (retract) {
    return {
      ...reportEnvelope(v, eventId),
      type: "ReportRetracted",
      data: { targetEventId: `${incidentId}-e${retract}`, reason: "Corrected by the source." },
    };
  }
  return reportEnvelope(v, eventId);
}

/** The last version before `v` holding the plain report of kind `kind` (0 casualties, 2 a denial). */
function lastPlain(v: number, kind: number): number | undefined {
  for (let u = v - 1; u >= 2; u--) if (u % 3 === kind && u % 10 !== 0 && u % 25 !== 0) return u;
  return undefined;
}

/** Writes every event as its own commit item, 25 items a request, a few requests at once. */
export async function storeHistory(
  db: DynamoDBClient,
  table: string,
  history: Map<string, StoredEvent[]>,
): Promise<number> {
  const items: Item[] = [];
  for (const [incidentId, events] of history) {
    for (const event of events) {
      items.push(
        commitToItem({
          incidentId,
          version: event.version,
          lastVersion: event.version,
          events: [event],
          token: "bench",
        }),
      );
    }
  }
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  await eachLimited(batches, 4, async (batch) => {
    let pending = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0 && attempt < 20; attempt++) {
      const out = await db.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
    if (pending.length > 0) throw new Error("dynalite left items unprocessed after 20 attempts");
  });
  return items.length;
}
