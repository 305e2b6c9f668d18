import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../events/schemas.js";
import { checkDisclosure, commitmentsIn } from "../../events/sealing.js";
import type { StoredEvent } from "../../events/stored-event.js";
import type { LocalServer } from "../../functions/local/server.js";
import { DisclosureStore } from "../../functions/people/disclosure-store.js";
import { SealedAppend } from "../../functions/people/sealed-append.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { type AppendResult, EventStore } from "../../functions/store/event-store.js";
import { peopleTables } from "../../functions/store/table-design.js";
import { AP, opened, startArchive } from "../support/archive.js";
import { type Fault, faultyClient, InjectedCrashError } from "../support/faulty-client.js";

/**
 * Several independent store instances (as separate Lambdas would be), each with several appends
 * in flight (queued per incident in the store), append to two incidents on one dynalite, each
 * through a client that crashes before or after chosen DynamoDB calls or
 * delivers a call twice. A crashed writer restarts as a new instance (empty caches); its client
 * retries a request only when every event of it carries an eventId — a request with an event
 * without one is not safe to retry blindly (docs/how-to/retry-a-write.md), so a careful client does not.
 * After each run every guarantee of DESIGN.md is checked against what was acknowledged.
 */
const SEED = 20261130;
const RUNS = 12;
const WRITERS = 4;
const IN_FLIGHT = 3;

let archive: LocalServer;
beforeAll(async () => {
  archive = await startArchive();
});
afterAll(() => archive.close());

interface Op {
  incident: 0 | 1;
  /**
   * Each event: a pooled client id (shared across writers and incidents), an id of its own
   * (never shared: such appends rarely conflict, so a writer's appends in flight queue up),
   * or none.
   */
  ids: (number | "own" | null)[];
}

const faultArb = fc.constantFrom<Fault>(
  "none",
  "none",
  "none",
  "none",
  "none",
  "none",
  "crash-before",
  "crash-after",
  "twice",
);
const opArb: fc.Arbitrary<Op> = fc.record({
  incident: fc.constantFrom(0 as const, 0 as const, 1 as const),
  ids: fc.array(fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constant("own" as const), fc.constant(null)), {
    minLength: 1,
    maxLength: 3,
  }),
});
const writerArb = fc.record({
  ops: fc.array(opArb, { minLength: 2, maxLength: 5 }),
  faults: fc.array(faultArb, { maxLength: 40 }),
});

let run = 0;
const tally = { runs: 0, acknowledged: 0, crashes: 0, stored: 0, refused: 0 };

/** A pooled id's content depends on the id alone, so twins are faithful repeats and reuse elsewhere is a conflict. */
function envelope(marker: string, eventId: string | undefined, value: number): Envelope {
  return {
    ...(eventId ? { eventId } : {}),
    type: "CasualtiesReported",
    source: AP,
    attributedTo: { name: marker },
    data: { figures: { killed: { value, qualifier: "exact" } } },
  } as Envelope;
}

describe("the store under injected faults, several writers at once (DESIGN.md guarantees)", () => {
  it(`holds every guarantee after each run (seed ${SEED}, ${RUNS} runs, ${WRITERS} writers)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(writerArb, { minLength: WRITERS, maxLength: WRITERS }), async (writers) => {
        run += 1;
        tally.runs += 1;
        const incidents = [`faults-${run}-a`, `faults-${run}-b`];
        const clean = createDynamoClient(archive.dynamoEndpoint);
        const reader = new EventStore({ db: clean, tables: archive.tables });
        for (const id of incidents) {
          await reader.append({
            incidentId: id,
            envelopes: [opened() as Envelope],
            recordedBy: "setup",
            batched: false,
          });
        }
        const requests = new Map<string, string[]>(); // commit markers of every request that was sent
        const acks: { incidentId: string; result: AppendResult; markers: string[] }[] = [];

        await Promise.all(
          writers.map(async (writer, w) => {
            let call = 0;
            const plan = (() => {
              // One fault plan per writer, across its restarts: the n-th call it makes.
              return () => writer.faults[call++] ?? "none";
            })();
            let store = new EventStore({
              db: faultyClient(archive.dynamoEndpoint, plan),
              tables: archive.tables,
            });
            // Several appends in flight per writer, queued by its store one after another.
            const streams = Array.from({ length: IN_FLIGHT }, (_, s) =>
              [...writer.ops.entries()].filter(([o]) => o % IN_FLIGHT === s),
            );
            await Promise.all(
              streams.map(async (ops) => {
                for (const [o, op] of ops) {
                  const seen = new Set<number>();
                  const envelopes = op.ids.map((k, i) => {
                    if (k === "own") {
                      return envelope(`own-${run}-${w}-${o}-${i}`, `own-${run}-${w}-${o}-${i}`, i);
                    }
                    const pooled = k !== null && !seen.has(k) ? k : null;
                    if (pooled !== null) seen.add(pooled);
                    return pooled === null
                      ? envelope(`m-${run}-${w}-${o}-${i}`, undefined, i)
                      : envelope(`id-${run}-${pooled}`, `id-${run}-${pooled}`, pooled);
                  });
                  const markers = envelopes.map((e) => e.attributedTo?.name as string);
                  requests.set(markers.join("|"), markers);
                  const incidentId = incidents[op.incident] as string;
                  const retriable = envelopes.every((e) => e.eventId);
                  for (let attempt = 0; attempt < 4; attempt++) {
                    try {
                      const result = await store.append({
                        incidentId,
                        envelopes,
                        recordedBy: `w${w}`,
                        batched: envelopes.length > 1,
                      });
                      acks.push({ incidentId, result, markers });
                      break;
                    } catch (error) {
                      if (!(error instanceof InjectedCrashError)) {
                        tally.refused += 1;
                        break; // a refusal (409, …): nothing to retry
                      }
                      tally.crashes += 1;
                      // The process died: a new instance, with nothing cached, takes over.
                      store = new EventStore({
                        db: faultyClient(archive.dynamoEndpoint, plan),
                        tables: archive.tables,
                      });
                      if (!retriable) break;
                    }
                  }
                }
              }),
            );
          }),
        );

        const stored = new Map<string, StoredEvent[]>();
        const byMarker = new Map<string, StoredEvent[]>();
        for (const incidentId of incidents) {
          const events: StoredEvent[] = [];
          // Batches whole: every commit holds exactly the events of one request, in order; no
          // commit beyond 25 events.
          for await (const commit of reader.commits(incidentId)) {
            events.push(...commit.events);
            expect(commit.events.length).toBeLessThanOrEqual(25);
            if (commit.version === 1) continue;
            const markers = commit.events.map((e) => e.attributedTo?.name as string);
            expect(requests.get(markers.join("|")), `commit ${incidentId}@${commit.version}`).toEqual(
              markers,
            );
          }
          stored.set(incidentId, events);
          // Versions gapless, chain intact.
          expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1));
          expect(await reader.verify(incidentId)).toMatchObject({ ok: true, version: events.length });
          for (const e of events.slice(1)) {
            const key = e.attributedTo?.name as string;
            byMarker.set(key, [...(byMarker.get(key) ?? []), e]);
          }
        }
        // None doubled, and an eventId is stored once across incidents.
        for (const [marker, copies] of byMarker) expect(copies, marker).toHaveLength(1);
        // No acknowledged event lost: each is stored at the version and with the hash it was answered with.
        for (const ack of acks) {
          const events = stored.get(ack.incidentId) ?? [];
          ack.result.events.forEach((answered, i) => {
            const event = events[answered.version - 1];
            expect(event?.hash).toBe(answered.hash);
            expect(event?.eventId).toBe(answered.eventId);
            expect(event?.attributedTo?.name).toBe(ack.markers[i]);
          });
        }
        tally.acknowledged += acks.length;
        tally.stored += byMarker.size;
        clean.destroy();
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The runs must have exercised what they claim to: crashes, refusals and acknowledgements.
    expect(tally.crashes).toBeGreaterThan(2 * RUNS);
    expect(tally.acknowledged).toBeGreaterThan(3 * RUNS);
    console.info(`store fault runs: seed ${SEED}`, JSON.stringify(tally));
  });
});

/**
 * The same faults around sealed appends (functions/people/sealed-append.ts): the disclosures are
 * written before the commit, so whatever call a writer dies at, no stored event — acknowledged or
 * not — lacks a disclosure for any of its commitments, and a retry of the same eventId is
 * recognised as the same content (one stored event, answered with its first hash).
 */
const SEALED_RUNS = 8;

describe("sealed appends under injected faults (disclosures first, then the commit)", () => {
  it(`never stores an event whose disclosures are lost (seed ${SEED}, ${SEALED_RUNS} runs)`, async () => {
    const sealedTally = { acknowledged: 0, crashes: 0, stored: 0, orphans: 0 };
    const disclosuresTable = peopleTables(archive.tables).disclosures;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            ids: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 3 }),
            faults: fc.array(faultArb, { maxLength: 30 }),
          }),
          { minLength: 3, maxLength: 3 },
        ),
        async (writers) => {
          run += 1;
          const incidentId = `sealed-faults-${run}`;
          const clean = createDynamoClient(archive.dynamoEndpoint);
          const reader = new EventStore({ db: clean, tables: archive.tables });
          const cleanDisclosures = new DisclosureStore(clean, disclosuresTable);
          await reader.append({
            incidentId,
            envelopes: [opened() as Envelope],
            recordedBy: "setup",
            batched: false,
          });
          // A pooled id's victims depend on the id alone: twins are faithful repeats.
          const sealedEnvelope = (k: number) =>
            ({
              eventId: `sealed-${run}-${k}`,
              type: "VictimsRecorded",
              source: AP,
              attributedTo: { name: `list-${run}-${k}` },
              data: {
                victims: [{ name: `Name ${run}-${k}`, age: k, sex: "female" }, { place: `Place ${k}` }],
              },
            }) as Envelope;
          const acks: { result: AppendResult; ks: number[] }[] = [];
          await Promise.all(
            writers.map(async (writer) => {
              let call = 0;
              const plan = () => writer.faults[call++] ?? "none";
              const fresh = () => {
                const db = faultyClient(archive.dynamoEndpoint, plan);
                return new SealedAppend({
                  events: new EventStore({ db, tables: archive.tables }),
                  disclosures: new DisclosureStore(db, disclosuresTable),
                });
              };
              let store = fresh();
              for (const k of writer.ids) {
                for (let attempt = 0; attempt < 4; attempt++) {
                  try {
                    const result = await store.append({
                      incidentId,
                      envelopes: [sealedEnvelope(k)],
                      recordedBy: "w",
                      batched: false,
                    });
                    acks.push({ result, ks: [k] });
                    break;
                  } catch (error) {
                    if (!(error instanceof InjectedCrashError)) break;
                    sealedTally.crashes += 1;
                    store = fresh(); // a new instance; the client retries the same eventId
                  }
                }
              }
            }),
          );
          const events: StoredEvent[] = [];
          for await (const e of reader.events(incidentId)) events.push(e);
          expect(events.map((e) => e.version)).toEqual(events.map((_, i) => i + 1));
          expect(await reader.verify(incidentId)).toMatchObject({ ok: true });
          const ids = events.slice(1).map((e) => e.eventId);
          expect(new Set(ids).size).toBe(ids.length); // none doubled
          for (const event of events.slice(1)) {
            // Every commitment of every stored event has its disclosure, and it opens it.
            const held = await cleanDisclosures.ofEvent(incidentId, event.eventId);
            const commitments = commitmentsIn(event);
            expect(commitments).toHaveLength(3);
            for (const c of commitments) {
              const item = held.find((h) => h.pointer === c.pointer && h.digest === c.digest);
              expect(item, `${event.eventId} ${c.pointer}`).toBeDefined();
              if (item && !item.erased)
                expect(checkDisclosure(event, c.pointer, item.disclosure)).toEqual({ ok: true });
            }
            sealedTally.orphans += held.length - commitments.length;
          }
          for (const ack of acks) {
            const [answered] = ack.result.events;
            const stored = events[(answered?.version ?? 0) - 1];
            expect(stored?.hash).toBe(answered?.hash);
            expect(stored?.eventId).toBe(`sealed-${run}-${ack.ks[0]}`);
          }
          sealedTally.acknowledged += acks.length;
          sealedTally.stored += events.length - 1;
          clean.destroy();
        },
      ),
      { seed: SEED, numRuns: SEALED_RUNS, endOnFailure: true },
    );
    expect(sealedTally.crashes).toBeGreaterThan(SEALED_RUNS);
    expect(sealedTally.acknowledged).toBeGreaterThan(2 * SEALED_RUNS);
    console.info(`sealed fault runs: seed ${SEED}`, JSON.stringify(sealedTally));
  });
});
