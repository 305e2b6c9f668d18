import { checkAppend, type RuleBreach } from "./append-rules.js";
import { setOwn } from "./own-keys.js";
import type { Attribution, Envelope, EventType, Figure } from "./schemas.js";
import { EMPTY_HEAD, type SealContext, type StoredEvent, sealEvents } from "./stored-event.js";
import { type Summary, summarize } from "./summarize.js";
import { fold, type IncidentState } from "./summary.js";

/**
 * A small given/when/then kit for the pure domain (Emmett style), and builders for envelopes.
 * No I/O: events are sealed in memory with a clock that ticks one second per event.
 */

export const INCIDENT = "kramatorsk-station-2022-04-08";
export const AP = { publisher: "Associated Press", publishedAt: "2022-04-08" } as const;
const T0 = Date.parse("2022-04-08T18:00:00.000Z");

export const by = (name: string, extra: Omit<Attribution, "name"> = {}): Attribution => ({ name, ...extra });

export const opened = (eventId = "kramatorsk-opened"): Envelope => ({
  eventId,
  type: "IncidentOpened",
  source: AP,
  data: {
    title: "Missile strike on Kramatorsk railway station",
    kind: "missile-strike",
    location: { name: "Kramatorsk railway station", region: "Donetsk Oblast", country: "UA" },
    occurredOn: "2022-04-08",
  },
});

export const casualties = (eventId: string, who: string, figures: Record<string, Figure>): Envelope => ({
  eventId,
  type: "CasualtiesReported",
  source: AP,
  attributedTo: by(who),
  data: { figures },
});

export const statement = (eventId: string, who: string, quote = "completely unacceptable"): Envelope => ({
  eventId,
  type: "StatementMade",
  source: AP,
  attributedTo: by(who),
  data: { quote, stance: "condemns" },
});

export const denial = (eventId: string, who = "Dmitry Peskov", claim = "that Russia did it"): Envelope => ({
  eventId,
  type: "DenialIssued",
  source: AP,
  attributedTo: by(who),
  data: { claim },
});

type Verdict = "supported" | "disputed" | "false" | "unverified";
export const assessment = (eventId: string, targetEventId: string, verdict: Verdict): Envelope => ({
  eventId,
  type: "ClaimAssessed",
  source: AP,
  attributedTo: by("Experts"),
  data: { targetEventId, verdict },
});

export const retraction = (eventId: string, targetEventId: string): Envelope => ({
  eventId,
  type: "ReportRetracted",
  source: AP,
  attributedTo: by("Associated Press"),
  data: { targetEventId, reason: "corrected" },
});

export const exact = (value: number): Figure => ({ value, qualifier: "exact" });
export const atLeast = (value: number): Figure => ({ value, qualifier: "at-least" });
export const about = (value: number): Figure => ({ value, qualifier: "about" });

/** Seals envelopes one by one after `head` (each a second later), as the store would. */
export function sealAll(envelopes: readonly Envelope[], after: readonly StoredEvent[] = []): StoredEvent[] {
  const out = [...after];
  let generated = 0;
  for (const envelope of envelopes) {
    const last = out[out.length - 1];
    const head = last ? { version: last.version, hash: last.hash, recordedAt: last.recordedAt } : EMPTY_HEAD;
    const ctx: SealContext = {
      incidentId: INCIDENT,
      recordedBy: "writer:test",
      now: new Date(T0 + (head.version + 1) * 1000).toISOString(),
      newEventId: () => `generated-${head.version + 1}-${++generated}`,
    };
    out.push(...sealEvents(head, [envelope], ctx));
  }
  return out.slice(after.length);
}

/** Every event of a history by id, with its type: what a target may name. */
function typesOf(events: readonly StoredEvent[]): Record<string, EventType> {
  const types: Record<string, EventType> = {};
  for (const e of events) setOwn(types, e.eventId, e.type);
  return types;
}

export interface Scenario {
  /** The sealed history. */
  events: StoredEvent[];
  state: IncidentState;
  /** More events folded onto the history; `then` sees the summary and the state. */
  when(...envelopes: Envelope[]): { then(check: (summary: Summary, state: IncidentState) => void): void };
  /** An append checked against the history; `then` sees the rule it breaks, or null. */
  whenAppending(
    envelopes: Envelope[],
    batched?: boolean,
  ): { then(check: (breach: RuleBreach | null) => void): void };
}

export function given(...history: Envelope[]): Scenario {
  const events = sealAll(history);
  const state = fold(INCIDENT, events);
  return {
    events,
    state,
    when: (...envelopes) => ({
      // biome-ignore lint/suspicious/noThenProperty: given/when/then is the point; nothing awaits this.
      then: (check) => {
        const after = fold(INCIDENT, sealAll(envelopes, events), state, events);
        check(summarize(after), after);
      },
    }),
    whenAppending: (envelopes, batched = envelopes.length > 1) => ({
      // biome-ignore lint/suspicious/noThenProperty: given/when/then is the point; nothing awaits this.
      then: (check) => check(checkAppend(state.version, envelopes, batched, typesOf(events))),
    }),
  };
}

/** A JSON value with every object's members in reverse order: the same value, written another way. */
export function keysReversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(keysReversed);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, keysReversed(v)]),
  );
}
