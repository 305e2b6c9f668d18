import type { Envelope as DomainEnvelope } from "../../events/schemas.js";
import { parseEnvelope } from "../../events/validate.js";
import type { createLedgerCore } from "../../functions/ledger-core.js";
import { type Envelope, openedEnvelope, reportEnvelope } from "./fixtures.js";

/** The event store as the composition root hands it out. */
type EventStore = ReturnType<typeof createLedgerCore>["events"];

/** A fixture checked by the same schemas the API uses, typed as the store takes it. */
export function envelope(raw: Envelope): DomainEnvelope {
  const parsed = parseEnvelope(raw);
  if (!parsed.ok) throw new Error(`invalid fixture: ${JSON.stringify(parsed.errors)}`);
  return parsed.value;
}

export async function appendOne(events: EventStore, incidentId: string, raw: Envelope): Promise<number> {
  const result = await events.append({
    incidentId,
    envelopes: [envelope(raw)],
    recordedBy: "bench-seed",
    batched: false,
  });
  return result.version;
}

/** Runs `task` over `items` with at most `concurrency` at once. */
export async function eachLimited<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Opens each incident and appends `reports` reports to it, one commit per event, through the store. */
export async function seedIncidents(events: EventStore, ids: readonly string[], reports = 0): Promise<void> {
  await eachLimited(ids, 16, async (id) => {
    await appendOne(events, id, openedEnvelope());
    for (let i = 0; i < reports; i++) await appendOne(events, id, reportEnvelope(i));
  });
}
