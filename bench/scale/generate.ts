import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import { canonicalJson, GENESIS_HASH, sha256Hex } from "../../events/stored-event.js";
import { mulberry32 } from "../../test/support/seeded-random.js";

/**
 * `tsx bench/scale/generate.ts --events 1000000 --out scale.ndjson [--incidents N] [--seed S]`:
 * a synthetic archive export (stored events with their hash chains, one JSON object a line, in a
 * log-like order), for `npm run import -- scale.ndjson`. Deterministic for a seed. The mix: most
 * incidents 5–30 events, the rest of the budget in a few incidents of thousands (5,000+ at a
 * million events), 500 sources, 2 % retractions, denials with assessments. Streamed: memory holds
 * the incidents being written, never the file.
 */
const { values } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    incidents: { type: "string" },
    sources: { type: "string", default: "500" },
    seed: { type: "string", default: "25" },
    out: { type: "string", default: "scale.ndjson" },
  },
});
const EVENTS = Number(values.events);
const INCIDENTS = Number(values.incidents ?? Math.max(1, Math.round(EVENTS / 20)));
const SOURCES = Number(values.sources);

const random = mulberry32(Number(values.seed));
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const FIRST = [
  "Olena",
  "Pavlo",
  "Ivan",
  "Maria",
  "Serhiy",
  "Iryna",
  "Oleksandr",
  "Yulia",
  "Dmytro",
  "Natalia",
  "Andriy",
  "Tetiana",
  "Viktor",
  "Hanna",
  "Mykola",
  "Oksana",
  "Roman",
  "Svitlana",
  "Yuriy",
  "Larysa",
];
const LAST = [
  "Kovalenko",
  "Shevchenko",
  "Bondarenko",
  "Tkachenko",
  "Kravchenko",
  "Oliynyk",
  "Melnyk",
  "Moroz",
  "Lysenko",
  "Rudenko",
  "Savchenko",
  "Petrenko",
  "Klymenko",
  "Marchenko",
  "Pavlenko",
  "Levchenko",
  "Hnatyuk",
  "Zinchenko",
  "Ponomarenko",
  "Vlasenko",
  "Karpenko",
  "Kuzmenko",
  "Fedorenko",
  "Yakovenko",
  "Sydorenko",
];
const ROLES = [
  "Governor",
  "Mayor",
  "Ministry of Defence spokesperson",
  "Police chief",
  "Emergency service",
  "Prosecutor",
  "Witness",
  "Hospital director",
  "Military spokesperson",
  "Human rights monitor",
];
const SIDES = ["Ukraine", "Russia", "United Nations", "Independent"];
const PUBLISHERS = [
  "Associated Press",
  "Reuters",
  "AFP",
  "BBC",
  "Ukrainska Pravda",
  "Kyiv Independent",
  "TASS",
  "RIA Novosti",
  "Suspilne",
  "Hromadske",
  "The Guardian",
  "New York Times",
  "Washington Post",
  "Le Monde",
  "Der Spiegel",
  "Meduza",
  "Novaya Gazeta Europe",
  "Radio Liberty",
  "Ukrinform",
  "Interfax-Ukraine",
  "Bellingcat",
  "OHCHR",
  "HRW",
  "Amnesty International",
  "OSCE SMM",
  "Al Jazeera",
  "CNN",
  "DW",
  "Euronews",
  "Politico",
];
const KINDS = [
  "missile-strike",
  "shelling",
  "air-strike",
  "drone-strike",
  "mass-grave",
  "cluster-munitions",
  "landmine",
  "artillery",
];
const PLACES = [
  ["Kramatorsk", "Donetsk Oblast", 48.73, 37.58],
  ["Kharkiv", "Kharkiv Oblast", 49.99, 36.23],
  ["Mariupol", "Donetsk Oblast", 47.1, 37.55],
  ["Bucha", "Kyiv Oblast", 50.54, 30.21],
  ["Kherson", "Kherson Oblast", 46.64, 32.62],
  ["Odesa", "Odesa Oblast", 46.48, 30.72],
  ["Dnipro", "Dnipropetrovsk Oblast", 48.46, 35.05],
  ["Zaporizhzhia", "Zaporizhzhia Oblast", 47.84, 35.14],
  ["Chernihiv", "Chernihiv Oblast", 51.49, 31.29],
  ["Sumy", "Sumy Oblast", 50.91, 34.8],
  ["Mykolaiv", "Mykolaiv Oblast", 46.97, 31.99],
  ["Izium", "Kharkiv Oblast", 49.21, 37.26],
  ["Bakhmut", "Donetsk Oblast", 48.6, 38.0],
  ["Lviv", "Lviv Oblast", 49.84, 24.03],
  ["Kyiv", "Kyiv", 50.45, 30.52],
] as const;
const WORDS = [
  "residential",
  "building",
  "hospital",
  "school",
  "station",
  "market",
  "bridge",
  "shelter",
  "evacuation",
  "convoy",
  "apartment",
  "theatre",
  "factory",
  "port",
  "church",
  "village",
  "checkpoint",
  "power",
  "plant",
  "queue",
];
const STANCES = ["condemns", "accuses", "denies", "supports", "neutral"] as const;
const VERDICTS = ["supported", "disputed", "false", "unverified"] as const;
const CLAIMS = [
  "responsibility for the strike",
  "that civilians were killed",
  "that the weapon is in service",
  "that the site was a civilian object",
  "the reported casualty figures",
];

const sources = Array.from({ length: SOURCES }, (_, i) => ({
  name: `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}${i >= FIRST.length * LAST.length ? ` ${i}` : ""}`,
  role: pick(ROLES),
  side: pick(SIDES),
}));

/** Incident sizes: 5–30 each, the rest of the budget spread over a few long incidents. */
function sizes(): number[] {
  const out = Array.from({ length: INCIDENTS }, () => int(5, 30));
  let total = out.reduce((a, b) => a + b, 0);
  let i = 0;
  while (total > EVENTS && i < out.length * 30) {
    const k = i % out.length;
    if ((out[k] as number) > 1) {
      out[k] = (out[k] as number) - 1;
      total -= 1;
    }
    i += 1;
  }
  const rest = EVENTS - total;
  if (rest > 0) {
    const long = Math.max(1, Math.round(rest / 6000));
    for (let k = 0; k < long; k += 1) {
      const index = Math.floor((k * INCIDENTS) / long);
      out[index] = (out[index] as number) + Math.floor(rest / long) + (k < rest % long ? 1 : 0);
    }
  }
  return out;
}

interface Live {
  n: number;
  id: string;
  size: number;
  version: number;
  prevHash: string;
  denials: string[];
  reports: string[];
  retracted: Set<string>;
}

let clock = Date.parse("2024-01-01T00:00:00.000Z");
let index = 0;
const out = createWriteStream(values.out as string);
const write = (line: string) =>
  out.write(line) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r()));

function nextEvent(live: Live): Record<string, unknown> {
  live.version += 1;
  clock += int(1, 40);
  const v = live.version;
  const eventId = `gen-${live.n}-${v}`;
  const speaker = pick(sources);
  const source = { publisher: pick(PUBLISHERS) };
  const attributedTo = { name: speaker.name, role: speaker.role, side: speaker.side };
  let body: Record<string, unknown>;
  const roll = random();
  if (v === 1) {
    const [name, region, lat, lon] = pick(PLACES);
    const day = new Date(Date.parse("2022-02-24T00:00:00Z") + int(0, 900) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    body = {
      type: "IncidentOpened",
      source,
      data: {
        title: `${pick(KINDS).replace(/-/g, " ")} on ${pick(WORDS)} ${pick(WORDS)} in ${name}`,
        kind: pick(KINDS),
        location: {
          name,
          region,
          country: "UA",
          lat: Number((lat + (random() - 0.5) * 0.4).toFixed(4)),
          lon: Number((lon + (random() - 0.5) * 0.4).toFixed(4)),
        },
        occurredOn: day,
        description: `Reports of a ${pick(WORDS)} ${pick(WORDS)} hit near ${name}; ${pick(WORDS)} and ${pick(WORDS)} damaged.`,
      },
    };
  } else if (roll < 0.02 && live.reports.length > 0) {
    const target = live.reports.splice(int(0, live.reports.length - 1), 1)[0] as string;
    live.retracted.add(target);
    body = {
      type: "ReportRetracted",
      source,
      attributedTo,
      data: { targetEventId: target, reason: "The source corrected its report." },
    };
  } else if (roll < 0.1) {
    body = {
      type: "DenialIssued",
      source,
      attributedTo,
      data: { claim: pick(CLAIMS), counterClaim: `It was a ${pick(WORDS)} of the other side.` },
    };
    live.denials.push(eventId);
    if (live.denials.length > 50) live.denials.shift();
  } else if (roll < 0.18 && live.denials.length > 0) {
    body = {
      type: "ClaimAssessed",
      source,
      attributedTo,
      data: {
        targetEventId: pick(live.denials),
        verdict: pick(VERDICTS),
        reasoning: `Checked against ${pick(WORDS)} footage.`,
      },
    };
  } else if (roll < 0.58) {
    const killed = int(0, 60);
    body = {
      type: "CasualtiesReported",
      source,
      attributedTo,
      data: {
        figures: {
          killed:
            random() < 0.7
              ? { value: killed, qualifier: pick(["exact", "at-least", "about"] as const) }
              : { min: killed, max: killed + int(1, 20) },
          ...(random() < 0.5 ? { injured: { value: int(0, 200), qualifier: "at-least" } } : {}),
        },
      },
    };
    live.reports.push(eventId);
    if (live.reports.length > 50) live.reports.shift();
  } else {
    body = {
      type: "StatementMade",
      source,
      attributedTo,
      data: {
        quote: `The ${pick(WORDS)} near the ${pick(WORDS)} was hit; ${pick(WORDS)} ${pick(WORDS)} people are being helped.`,
        stance: pick(STANCES),
      },
    };
    live.reports.push(eventId);
    if (live.reports.length > 50) live.reports.shift();
  }
  const unsealed = {
    eventId,
    incidentId: live.id,
    version: v,
    ...body,
    recordedAt: new Date(clock).toISOString(),
    recordedBy: "scale-generator",
    prevHash: live.prevHash,
  };
  const hash = sha256Hex(canonicalJson(unsealed));
  live.prevHash = hash;
  index += 1;
  return { ...unsealed, hash };
}

const plan = sizes();
const ACTIVE = 64;
const live: Live[] = [];
let next = 0;
const open = () => {
  if (next >= plan.length) return;
  const n = next;
  next += 1;
  live.push({
    n,
    id: `gen-${String(n).padStart(6, "0")}`,
    size: plan[n] as number,
    version: 0,
    prevHash: GENESIS_HASH,
    denials: [],
    reports: [],
    retracted: new Set(),
  });
};
for (let i = 0; i < ACTIVE; i += 1) open();
const started = Date.now();
while (live.length > 0) {
  const k = int(0, live.length - 1);
  const incident = live[k] as Live;
  const run = Math.min(int(1, 25), incident.size - incident.version);
  const lines: string[] = [];
  for (let i = 0; i < run; i += 1) lines.push(`${JSON.stringify(nextEvent(incident))}\n`);
  await write(lines.join(""));
  if (incident.version >= incident.size) {
    live.splice(k, 1);
    open();
  }
}
await new Promise<void>((resolve) => out.end(() => resolve()));
process.stderr.write(
  `${index} events over ${plan.length} incidents (longest ${Math.max(...plan)}) in ${((Date.now() - started) / 1000).toFixed(1)} s → ${values.out}\n`,
);
