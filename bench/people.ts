/**
 * The people's costs (issue 22), in one process over in-memory dynalite:
 * 1. the sealing cost: an append of a VictimsRecorded with 10, 100 and 1,000 victims (1,000: a
 *    batch of two lists of 500), sealed with the disclosures packed (the store today), sealed
 *    with one item a value (the first layout, test/support/legacy-disclosures.ts: "before"),
 *    and the same envelope stored in the clear, each through one EventStore on the same client
 *    (no HTTP, no projector), rounds alternating; the ratios are against the clear append;
 * 2. a summary read (GET /incidents/{id}) of an incident with 5,000 recorded victims vs 10:
 *    must be flat (counts, not lists);
 * 3. erasing one victim's disclosures (a RedactionApplied through HTTP) in an incident of 10,000
 *    events vs one of 10, samples alternating, each after the projection and the log are idle:
 *    must not grow with the incident.
 *
 *   npm run bench:people                 full sizes
 *   npm run bench:people -- --small      the same rows at small sizes, for a quick look
 */
import { cpus, loadavg } from "node:os";
import type { Envelope } from "../events/schemas.js";
import { startLocalServer } from "../functions/local/server.js";
import { silentLogger } from "../functions/logger.js";
import { DisclosureStore } from "../functions/people/disclosure-store.js";
import { SealedAppend } from "../functions/people/sealed-append.js";
import { createDynamoClient } from "../functions/store/dynamo-client.js";
import { EventStore } from "../functions/store/event-store.js";
import { peopleTables } from "../functions/store/table-design.js";
import { FirstLayoutDisclosureStore } from "../test/support/legacy-disclosures.js";
import { median, percentile } from "./lib/stats.js";

const small = process.argv.includes("--small");
const SIZES = small
  ? { rounds: 6, bigRounds: 3, bigList: 500, smallList: 10, longIncident: 500, shortIncident: 10, reads: 50 }
  : {
      rounds: 30,
      bigRounds: 10,
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

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
console.log(`machine: ${cpus().length} cores, Node ${process.version}; load average at start ${load()}`);

// 1. The sealing cost: packed and first layout vs the clear append, at three sizes.
const db = createDynamoClient(archive.dynamoEndpoint);
const store = new EventStore({ db, tables: archive.tables });
const table = peopleTables(archive.tables).disclosures;
const packed = new SealedAppend({ events: store, disclosures: new DisclosureStore(db, table) });
const firstLayout = new SealedAppend({
  events: store,
  disclosures: new FirstLayoutDisclosureStore(db, table),
});
const ways = {
  clear: (id: string, envelopes: Envelope[]) => store.append(request(id, envelopes)),
  packed: (id: string, envelopes: Envelope[]) => packed.append(request(id, envelopes)),
  "one item a value": (id: string, envelopes: Envelope[]) => firstLayout.append(request(id, envelopes)),
};
function request(incidentId: string, envelopes: Envelope[]) {
  return { incidentId, envelopes, recordedBy: "bench", batched: envelopes.length > 1 };
}
type Way = keyof typeof ways;
const lists = (victims: number, tag: string) => {
  const out: Envelope[] = [];
  for (let left = victims, k = 0; left > 0; k++, left -= 500)
    out.push(victimsList(Math.min(500, left), `${tag}-${k}`));
  return out;
};
const sealingRows: string[] = [];
for (const victims of [10, 100, 1000]) {
  const id = `bench-seal-${victims}`;
  await store.append(request(id, [opened(id)]));
  const samples: Record<Way, number[]> = { clear: [], packed: [], "one item a value": [] };
  const order: Way[] = ["clear", "packed", "one item a value"];
  const rounds = victims >= 1000 ? SIZES.bigRounds : SIZES.rounds;
  for (let r = -1; r < rounds; r++) {
    // A B C C B A …: each way as often first as last; round -1 warms up and is not kept.
    for (const way of r % 2 ? [...order].reverse() : order) {
      const ms = await timed(() => ways[way](id, lists(victims, `${id}-${way.replace(/ /g, "-")}-${r + 1}`)));
      if (r >= 0) samples[way].push(ms);
    }
  }
  const clear = median(samples.clear);
  const line = (way: Way) =>
    `${way} p50 ${median(samples[way]).toFixed(1)} ms (p99 ${percentile(samples[way], 99).toFixed(1)}), ${(median(samples[way]) / clear).toFixed(2)}×`;
  sealingRows.push(
    `append of ${victims} victims (${rounds} rounds): clear p50 ${clear.toFixed(1)} ms; sealed, ${line("packed")}; sealed, ${line("one item a value")}`,
  );
  console.log(sealingRows[sealingRows.length - 1]);
}

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
await archive.sequencing.idle();
const many: number[] = [];
const few: number[] = [];
const read = (id: string) => timed(() => fetch(`${archive.url}/incidents/${id}`).then((a) => a.text()));
for (let i = 0; i < SIZES.reads; i++) {
  // A B B A …
  if (i % 2) {
    few.push(await read("bench-few"));
    many.push(await read("bench-many"));
  } else {
    many.push(await read("bench-many"));
    few.push(await read("bench-few"));
  }
}
const bytes = async (id: string) => (await (await fetch(`${archive.url}/incidents/${id}`)).text()).length;
console.log(
  `summary read: ${SIZES.bigList} victims p50 ${median(many).toFixed(2)} ms (p99 ${percentile(many, 99).toFixed(2)}, ${await bytes("bench-many")} B) vs ${SIZES.smallList} victims p50 ${median(few).toFixed(2)} ms (${await bytes("bench-few")} B); ratio ${(median(many) / median(few)).toFixed(2)}`,
);

// 3. Erasure of one victim's values in a long incident vs a short one, samples alternating.
const ERASURES = 20;
async function incidentToErase(id: string, events: number): Promise<void> {
  await append(id, [opened(id)]);
  await sealedAppend(id, [victimsList(ERASURES, `${id}-target`)]);
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
}
const eraseOne = async (id: string, v: number) => {
  // The projection and the log of what came before finish first: their CPU is not the erasure's.
  await archive.stream.projected(id);
  await archive.sequencing.idle();
  return timed(() =>
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
  );
};
await incidentToErase("bench-erase-long", SIZES.longIncident);
await incidentToErase("bench-erase-short", SIZES.shortIncident);
const erasures = { long: [] as number[], short: [] as number[] };
for (let v = 0; v < ERASURES; v++) {
  // A B B A …
  for (const which of v % 2 ? (["short", "long"] as const) : (["long", "short"] as const))
    erasures[which].push(await eraseOne(`bench-erase-${which}`, v));
}
const long = median(erasures.long);
const short = median(erasures.short);
console.log(
  `erasure of one victim (${ERASURES} each): incident of ${SIZES.longIncident} events p50 ${long.toFixed(1)} ms vs ${SIZES.shortIncident} events ${short.toFixed(1)} ms; ratio ${(long / short).toFixed(2)}`,
);
console.log(`load average at the end ${load()}`);
db.destroy();
await archive.close();
