import { randomUUID } from "node:crypto";
import { BatchWriteItemCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { Envelope } from "../../events/schemas.js";
import { serverEventId } from "../../events/server-ids.js";
import { EMPTY_HEAD, type StoredEvent, sealEvents } from "../../events/stored-event.js";
import { commitToItem } from "../../functions/store/commit-item.js";
import { mulberry32 } from "./seeded-random.js";

/**
 * A long incident as the issue describes one — casualty updates from 40 rotating officials,
 * statements, some denials, assessments and retractions, a few of them of reports far back —
 * sealed as the store seals them (server-made ids, a second apart), so it can be written
 * straight into the events table: thousands of events in a second or two, not via HTTP.
 * Deterministic for a seed.
 */
export const OFFICIALS = Array.from({ length: 40 }, (_, k) => `Official ${String(k + 1).padStart(2, "0")}`);
const AP = { publisher: "Associated Press", url: "https://apnews.com/article/long-incident" };
const T0 = Date.parse("2024-01-01T00:00:00Z");

/**
 * How often each kind of event comes (cumulative thresholds on a uniform draw; reports take the
 * rest). `HEAVY` tests the rare paths often; `ISSUE` is the issue's siege: casualty updates and
 * statements, some denials, few assessments and retractions.
 */
export interface Mix {
  reports: number;
  statements: number;
  denials: number;
  assessments: number;
  /** Of the retractions, how many name an event already retracted (allowed, and a no-op). */
  repeats?: number;
}
export const HEAVY: Mix = { reports: 0.55, statements: 0.78, denials: 0.81, assessments: 0.89 };
export const ISSUE: Mix = { reports: 0.6, statements: 0.985, denials: 0.987, assessments: 0.99 };
/**
 * A contested incident: denials, assessments (of old denials too) and retractions by the
 * hundred, some retractions repeated, so the summary's full lists spill into pieces.
 */
export const CONTESTED: Mix = {
  reports: 0.3,
  statements: 0.42,
  denials: 0.62,
  assessments: 0.8,
  repeats: 0.1,
};

export function longEnvelopes(incidentId: string, length: number, seed = 1, mix: Mix = HEAVY): Envelope[] {
  const rnd = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
  const id = (version: number) => serverEventId(incidentId, version);
  const out: Envelope[] = [
    {
      type: "IncidentOpened",
      source: AP,
      data: { title: "Siege of a city", kind: "shelling", location: { name: "Mariupol", country: "UA" } },
    } as Envelope,
  ];
  const retractable: number[] = [];
  const assessable: number[] = [];
  const retracted = new Set<number>();
  for (let version = 2; version <= length; version++) {
    const who = { name: pick(OFFICIALS), role: "Official", side: "Ukraine" };
    const r = rnd();
    const base = { source: AP, attributedTo: who };
    let envelope: Envelope;
    const live = retractable.filter((v) => !retracted.has(v));
    if (r < mix.reports || version < 20) {
      const killed = Math.floor(version / 4 + rnd() * 40);
      const figures: Record<string, unknown> = {
        killed:
          rnd() < 0.8 ? { value: killed, qualifier: "at-least" } : { value: killed, qualifier: "exact" },
      };
      if (rnd() < 0.4) figures.injured = { min: killed, max: killed * 2 + 10 };
      envelope = { ...base, type: "CasualtiesReported", data: { figures } } as Envelope;
      retractable.push(version);
    } else if (r < mix.statements) {
      envelope = {
        ...base,
        type: "StatementMade",
        data: { quote: `Statement number ${version}: the shelling continues.`, stance: "condemns" },
      } as Envelope;
      retractable.push(version);
      assessable.push(version);
    } else if (r < mix.denials) {
      envelope = {
        source: AP,
        attributedTo: { name: "Ministry of Defence", side: "Russia" },
        type: "DenialIssued",
        data: { claim: `responsibility for strike ${version}`, counterClaim: "a provocation" },
      } as Envelope;
      retractable.push(version);
      assessable.push(version);
    } else if (r < mix.assessments && assessable.length > 0) {
      const verdict = pick(["supported", "disputed", "false", "unverified"] as const);
      envelope = {
        ...base,
        type: "ClaimAssessed",
        data: { targetEventId: id(pick(assessable)), verdict, reasoning: "checked against imagery" },
      } as Envelope;
      retractable.push(version);
    } else if (live.length > 0) {
      // Most retractions are of something recent; one in four reaches far back.
      const target =
        mix.repeats && retracted.size > 0 && rnd() < mix.repeats
          ? pick([...retracted])
          : rnd() < 0.75
            ? (live[live.length - 1 - Math.floor(rnd() * Math.min(10, live.length))] as number)
            : pick(live);
      retracted.add(target);
      envelope = {
        ...base,
        type: "ReportRetracted",
        data: { targetEventId: id(target), reason: "corrected by the source" },
      } as Envelope;
    } else {
      envelope = {
        ...base,
        type: "StatementMade",
        data: { quote: "No comment.", stance: "neutral" },
      } as Envelope;
      retractable.push(version);
    }
    out.push(envelope);
  }
  return out;
}

/** The few sources of a fixed-breadth history. */
export const FEW_SOURCES = ["Regional governor", "City council", "Health ministry"] as const;

/**
 * A long incident whose breadth does not grow with its length: three sources, one denial, one
 * assessment and one retraction, all within the first 10 events; after them only casualty
 * reports and statements by those same three sources. At 10, 1,000 or 10,000 events its
 * summary has the same rows, so what an operation costs on it shows the length's effect alone.
 */
export function fixedBreadthEnvelopes(incidentId: string, length: number, seed = 1): Envelope[] {
  const rnd = mulberry32(seed);
  const id = (version: number) => serverEventId(incidentId, version);
  const by = (k: number) => ({
    source: AP,
    attributedTo: { name: FEW_SOURCES[k % 3] as string, side: "Ukraine" },
  });
  const report = (k: number, killed: number, injured?: number) =>
    ({
      ...by(k),
      type: "CasualtiesReported",
      data: {
        figures: {
          killed: { value: killed, qualifier: "at-least" },
          ...(injured ? { injured: { min: injured, max: injured * 2 } } : {}),
        },
      },
    }) as Envelope;
  const statement = (k: number, version: number) =>
    ({
      ...by(k),
      type: "StatementMade",
      data: { quote: `Update ${version}: the shelling continues.`, stance: "condemns" },
    }) as Envelope;
  const opening: Envelope[] = [
    {
      type: "IncidentOpened",
      source: AP,
      data: { title: "Siege of a city", kind: "shelling", location: { name: "Mariupol", country: "UA" } },
    } as Envelope,
    report(0, 10, 20),
    report(1, 12),
    report(2, 9, 15),
    statement(0, 5),
    {
      source: AP,
      attributedTo: { name: "Ministry of Defence", side: "Russia" },
      type: "DenialIssued",
      data: { claim: "responsibility for the shelling", counterClaim: "a provocation" },
    } as Envelope,
    {
      ...by(1),
      type: "ClaimAssessed",
      data: { targetEventId: id(6), verdict: "disputed", reasoning: "imagery" },
    } as Envelope,
    {
      ...by(1),
      type: "ReportRetracted",
      data: { targetEventId: id(3), reason: "corrected by the source" },
    } as Envelope,
    report(1, 14),
    statement(2, 10),
  ];
  const out = opening.slice(0, length);
  for (let version = out.length + 1; version <= length; version++) {
    const k = Math.floor(rnd() * 3);
    out.push(
      rnd() < 0.6
        ? report(k, Math.floor(version / 4 + rnd() * 40), rnd() < 0.4 ? Math.floor(version / 3) : undefined)
        : statement(k, version),
    );
  }
  return out;
}

export function fixedBreadthHistory(incidentId: string, length: number, seed = 1): StoredEvent[] {
  return sealLong(incidentId, fixedBreadthEnvelopes(incidentId, length, seed));
}

/** Seals envelopes after `after` as the store does (server-made ids, one second apart). */
export function sealLong(
  incidentId: string,
  envelopes: readonly Envelope[],
  after: readonly StoredEvent[] = [],
) {
  const out: StoredEvent[] = [];
  let last = after[after.length - 1];
  for (const envelope of envelopes) {
    const head = last ? { version: last.version, hash: last.hash, recordedAt: last.recordedAt } : EMPTY_HEAD;
    const [event] = sealEvents(head, [envelope], {
      incidentId,
      recordedBy: "writer:seed",
      now: new Date(T0 + (head.version + 1) * 1000).toISOString(),
      newEventId: (version) => serverEventId(incidentId, version),
    });
    out.push(event as StoredEvent);
    last = event;
  }
  return out;
}

export function longHistory(incidentId: string, length: number, seed = 1, mix: Mix = HEAVY): StoredEvent[] {
  return sealLong(incidentId, longEnvelopes(incidentId, length, seed, mix));
}

/**
 * Writes events straight into the events table as commit items of 1–4 events (as appends
 * would have made them), 25 items per BatchWrite. Nothing else is written: no claims (the ids
 * are server-made) and no views (the projector makes those).
 */
export async function seedCommits(db: DynamoDBClient, table: string, events: readonly StoredEvent[]) {
  const items = [];
  for (let i = 0, size = 1; i < events.length; i += size, size = (size % 4) + 1) {
    const chunk = events.slice(i, i + size);
    const first = chunk[0] as StoredEvent;
    const last = chunk[chunk.length - 1] as StoredEvent;
    items.push(
      commitToItem({
        incidentId: first.incidentId,
        version: first.version,
        lastVersion: last.version,
        events: chunk,
        token: randomUUID(),
      }),
    );
  }
  for (let i = 0; i < items.length; i += 25) {
    let requests = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const out = await db.send(new BatchWriteItemCommand({ RequestItems: { [table]: requests } }));
      requests = (out.UnprocessedItems?.[table] ?? []) as typeof requests;
    }
  }
}
