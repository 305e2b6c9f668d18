import { randomUUID } from "node:crypto";
import { BatchWriteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Envelope } from "../../events/schemas.js";
import { EMPTY_HEAD, type StoredEvent, sealEvents } from "../../events/stored-event.js";
import type { LocalServer } from "../../functions/local/server.js";
import { commitToItem, type Item } from "../../functions/store/commit-item.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";

/**
 * A large archive made fast: sealed commits (25 events each, chains intact) written straight
 * into the events table with BatchWriteItem, bypassing the API, then one pass of the server's own
 * log writer (sequencer and checkpoint publisher) over them — the log is built by the real code.
 */
export interface SeedOptions {
  incidents: number;
  eventsPerIncident: number;
  /** Characters of quote in each statement: makes the export as large as a test needs. */
  quoteLength?: number;
}

/** A small deterministic generator (mulberry32): the same archive every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOURCES = ["Regional governor", "Police", "Health ministry", "UN monitors", "Local officials"];

function envelopeFor(incident: number, version: number, next: () => number, quoteLength: number): Envelope {
  const source = { publisher: "Associated Press" };
  if (version === 1) {
    return {
      type: "IncidentOpened",
      source,
      data: {
        title: `Seeded incident ${incident}`,
        kind: incident % 3 === 0 ? "shelling" : "missile-strike",
        location: { name: `Place ${incident}`, country: "UA", lat: 48 + next(), lon: 37 + next() },
        occurredOn: "2022-04-08",
      },
    };
  }
  const attributedTo = { name: SOURCES[Math.floor(next() * SOURCES.length)] as string };
  const pick = next();
  if (pick < 0.5) {
    const value = Math.floor(next() * 200);
    return {
      type: "CasualtiesReported",
      source,
      attributedTo,
      data: {
        figures: {
          killed: { value, qualifier: next() < 0.5 ? "exact" : "at-least" },
          injured: { min: value, max: value + Math.floor(next() * 50) },
        },
      },
    } as Envelope;
  }
  if (pick < 0.9) {
    return {
      type: "StatementMade",
      source,
      attributedTo,
      data: { quote: `Statement ${version}: ${"x".repeat(quoteLength)}`, stance: "condemns" },
    } as Envelope;
  }
  return { type: "DenialIssued", source, attributedTo, data: { claim: `claim ${version}` } } as Envelope;
}

export async function seedCommits(db: DynamoDBClient, table: string, options: SeedOptions): Promise<number> {
  const next = random(42);
  const quoteLength = options.quoteLength ?? 40;
  let items: Item[] = [];
  let stored = 0;
  const t0 = Date.parse("2026-01-01T00:00:00.000Z");
  const flush = async () => {
    for (let i = 0; i < items.length; i += 25) {
      let pending = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const out = await db.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending } }));
        pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
    items = [];
  };
  for (let incident = 0; incident < options.incidents; incident++) {
    const incidentId = `seeded-${String(incident).padStart(6, "0")}`;
    let head = EMPTY_HEAD;
    for (let first = 1; first <= options.eventsPerIncident; first += 25) {
      const count = Math.min(25, options.eventsPerIncident - first + 1);
      const envelopes = Array.from({ length: count }, (_, i) =>
        envelopeFor(incident, first + i, next, quoteLength),
      );
      // Interleave incidents in time, as real traffic would: the log orders by recordedAt.
      const now = new Date(t0 + (first * options.incidents + incident) * 10).toISOString();
      const events: StoredEvent[] = sealEvents(head, envelopes, {
        incidentId,
        recordedBy: "seed",
        now,
        newEventId: (version) => `seed-${incident}-${version}`,
      });
      const last = events[events.length - 1] as StoredEvent;
      head = { version: last.version, hash: last.hash, recordedAt: last.recordedAt };
      items.push(
        commitToItem({ incidentId, version: first, lastVersion: last.version, events, token: randomUUID() }),
      );
      stored += events.length;
      if (items.length >= 250) await flush();
    }
  }
  await flush();
  return stored;
}

/** Seeds the archive's events table and runs the log's sequencer and publisher over it. */
export async function seedArchive(archive: LocalServer, options: SeedOptions) {
  const db = createDynamoClient(archive.dynamoEndpoint);
  try {
    const stored = await seedCommits(db, archive.tables.events, options);
    // The server's own writer and key: the log stays one log, signed by one key.
    const pass = await archive.logWriter.pass();
    return { stored, size: pass.size };
  } finally {
    db.destroy();
  }
}
