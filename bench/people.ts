/**
 * The people's costs (issue 22), in one process over in-memory dynalite:
 * 1. an append of a VictimsRecorded with 100 victims, sealed (SealedAppend: disclosures first,
 *    then the commit) vs the same event stored in the clear (EventStore alone): the sealing cost;
 * 2. a summary read (GET /incidents/{id}) of an incident with 5,000 recorded victims vs 10:
 *    must be flat (counts, not lists);
 * 3. erasing one victim's disclosures (a RedactionApplied) in an incident of 10,000 events vs
 *    one of 10: must not grow with the incident.
 *
 *   npx tsx bench/people.ts            full sizes (the lead runs it)
 *   npx tsx bench/people.ts --small    the same rows at small sizes, for a quick look
 */
import type { Envelope } from "../events/schemas.js";
import { startLocalServer } from "../functions/local/server.js";
import { silentLogger } from "../functions/logger.js";
import { median, percentile } from "./lib/stats.js";

const small = process.argv.includes("--small");
const SIZES = small
  ? { rounds: 10, victims: 100, bigList: 500, smallList: 10, longIncident: 500, shortIncident: 10, reads: 50 }
  : {
      rounds: 50,
      victims: 100,
      bigList: 5000,
      smallList: 10,
      longIncident: 10_000,
      shortIncident: 10,
      reads: 500,
    };
const TOKEN = "bench-people-token-0123456789";
const AP = { publisher: "Associated Press" };

const archive = await startLocalServer({
  port: 0,
  dynamoPort: 0,
  token: TOKEN,
  log: silentLogger,
  writer: "bench",
});
const core = archive.ledger;
const append = (incidentId: string, envelopes: Envelope[]) =>
  core.events.append({ incidentId, envelopes, recordedBy: "bench", batched: envelopes.length > 1 });
// The sealing path as the route runs it (functions/ledger-core.ts wires it into the append route).
const sealedAppend = async (incidentId: string, envelopes: Envelope[]) => {
  const res = await fetch(`${archive.url}/incidents/${incidentId}/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(envelopes.length === 1 ? envelopes[0] : { events: envelopes }),
  });
  if (res.status !== 201) throw new Error(`append answered ${res.status}: ${await res.text()}`);
};
const clearAppend = async (incidentId: string, envelopes: Envelope[]) => {
  // The same request through the same HTTP stack would seal it; the clear baseline stores the
  // very envelope through the event store alone, plus one HTTP round trip measured apart.
  await append(incidentId, envelopes);
};
const opened = (title: string) =>
  ({
    type: "IncidentOpened",
    source: AP,
    data: { title, kind: "missile-strike", location: { name: "Kramatorsk", country: "UA" } },
  }) as Envelope;
const victimsList = (n: number, eventId?: string) =>
  ({
    ...(eventId ? { eventId } : {}),
    type: "VictimsRecorded",
    source: AP,
    attributedTo: { name: "Registry" },
    data: {
      victims: Array.from({ length: n }, (_, i) => ({
        name: `Victim number ${i}`,
        age: 20 + (i % 60),
        sex: i % 2 ? "female" : "male",
        status: "civilian",
        place: "Platform 1",
      })),
    },
  }) as Envelope;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

// 1. Sealed vs clear append of 100 victims.
await append("bench-seal", [opened("sealing")]);
const sealed: number[] = [];
const clear: number[] = [];
const http: number[] = [];
for (let r = 0; r < SIZES.rounds; r++) {
  await archive.stream.projected("bench-seal");
  sealed.push(await timed(() => sealedAppend("bench-seal", [victimsList(SIZES.victims, `seal-${r}-list`)])));
  clear.push(await timed(() => clearAppend("bench-seal", [victimsList(SIZES.victims, `clear-${r}-list`)])));
  http.push(await timed(() => fetch(`${archive.url}/health`).then((a) => a.text())));
}
const sealedP50 = median(sealed);
const clearP50 = median(clear) + median(http);
console.log(
  `append of ${SIZES.victims} victims: sealed p50 ${sealedP50.toFixed(1)} ms, clear p50 ${clearP50.toFixed(1)} ms (store ${median(clear).toFixed(1)} + HTTP ${median(http).toFixed(1)}); ratio ${(sealedP50 / clearP50).toFixed(2)}`,
);

// 2. Summary read: many victims vs few.
async function incidentWithVictims(id: string, total: number) {
  await append(id, [opened(id)]);
  for (let left = total, k = 0; left > 0; k++) {
    const n = Math.min(500, left);
    await sealedAppend(id, [victimsList(n, `${id}-list-${k}`)]);
    left -= n;
  }
  await archive.stream.projected(id);
}
await incidentWithVictims("bench-many", SIZES.bigList);
await incidentWithVictims("bench-few", SIZES.smallList);
const reads = async (id: string) => {
  const out: number[] = [];
  for (let i = 0; i < SIZES.reads; i++)
    out.push(await timed(() => fetch(`${archive.url}/incidents/${id}`).then((a) => a.text())));
  return out;
};
const many = await reads("bench-many");
const few = await reads("bench-few");
const bytes = async (id: string) => (await (await fetch(`${archive.url}/incidents/${id}`)).text()).length;
console.log(
  `summary read: ${SIZES.bigList} victims p50 ${median(many).toFixed(2)} ms (p99 ${percentile(many, 99).toFixed(2)}, ${await bytes("bench-many")} B) vs ${SIZES.smallList} victims p50 ${median(few).toFixed(2)} ms (${await bytes("bench-few")} B); ratio ${(median(many) / median(few)).toFixed(2)}`,
);

// 3. Erasure of one victim's values in a long incident vs a short one.
async function eraseIn(id: string, events: number): Promise<number> {
  await append(id, [opened(id)]);
  await sealedAppend(id, [victimsList(5, `${id}-target`)]);
  const filler = (i: number) =>
    ({
      type: "CasualtiesReported",
      source: AP,
      attributedTo: { name: `S${i % 7}` },
      data: { figures: { killed: { value: i, qualifier: "exact" } } },
    }) as Envelope;
  for (let done = 2; done < events; ) {
    const n = Math.min(25, events - done);
    await append(
      id,
      Array.from({ length: n }, (_, i) => filler(done + i)),
    );
    done += n;
  }
  // The projection of the filler finishes first: its CPU would be counted against the erasure.
  await archive.stream.projected(id);
  await archive.sequencing.idle();
  const samples: number[] = [];
  for (let v = 0; v < 5; v++) {
    samples.push(
      await timed(() =>
        sealedAppend(id, [
          {
            type: "RedactionApplied",
            source: { publisher: "incident-ledger" },
            attributedTo: { name: "Editors" },
            data: {
              targetEventId: `${id}-target`,
              pointers: [`/data/victims/${v}/name`, `/data/victims/${v}/age`, `/data/victims/${v}/place`],
              effect: "erased",
              reason: "data-subject-request",
            },
          } as Envelope,
        ]),
      ),
    );
  }
  return median(samples);
}
const long = await eraseIn("bench-erase-long", SIZES.longIncident);
const short = await eraseIn("bench-erase-short", SIZES.shortIncident);
console.log(
  `erasure of one victim: incident of ${SIZES.longIncident} events p50 ${long.toFixed(1)} ms vs ${SIZES.shortIncident} events ${short.toFixed(1)} ms; ratio ${(long / short).toFixed(2)}`,
);
await archive.close();
