import { httpClient, type Send } from "./lib/http-client.js";
import { median } from "./lib/stats.js";

/**
 * The end-to-end table, re-measured as a user meets it: one incident fed by 4 writers
 * over HTTP (this process) to a running `npm start` (another process), casualty updates from 40
 * rotating officials, statements, some denials and retractions of the writer's own earlier
 * reports. `LEDGER_URL=http://127.0.0.1:3200 LEDGER_TOKEN=… npx tsx bench/long-e2e.ts [events]`
 */
const url = process.env.LEDGER_URL ?? "http://127.0.0.1:3000";
const token = process.env.LEDGER_TOKEN ?? "";
const total = Number(process.argv[2] ?? 6000);
const ID = `e2e-long-${Date.now().toString(36)}`;
const WRITERS = 4;
const AUTH = { authorization: `Bearer ${token}` };
const OFFICIALS = Array.from({ length: 40 }, (_, k) => `Official ${k + 1}`);
const AP = { publisher: "Associated Press" };

const client = httpClient(url, 16, 120_000);
const send: Send = client.send;

async function timedGet(path: string, times = 5): Promise<{ ms: number; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const answer = await send("GET", path);
    ms.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
    bytes = Buffer.byteLength(answer.text);
  }
  return { ms: median(ms), bytes };
}

async function post(body: unknown): Promise<void> {
  const answer = await send("POST", `/incidents/${ID}/events`, JSON.stringify(body), AUTH);
  if (answer.status !== 201 && answer.status !== 200)
    throw new Error(`${answer.status} ${answer.text.slice(0, 300)}`);
}

function envelope(writer: number, i: number, ownReports: string[]): unknown {
  const eventId = `w${writer}-${i}-${ID.slice(-6)}`;
  const who = { name: OFFICIALS[(i * 7 + writer) % OFFICIALS.length] as string, role: "Official" };
  const r = (i * 37 + writer * 11) % 100;
  if (r < 60) {
    ownReports.push(eventId);
    return {
      eventId,
      type: "CasualtiesReported",
      source: AP,
      attributedTo: who,
      data: { figures: { killed: { value: 100 + Math.floor(i / 3), qualifier: "at-least" } } },
    };
  }
  if (r < 92)
    return {
      eventId,
      type: "StatementMade",
      source: AP,
      attributedTo: who,
      data: { quote: `update ${i}`, stance: "condemns" },
    };
  if (r < 96)
    return {
      eventId,
      type: "DenialIssued",
      source: AP,
      attributedTo: { name: "Ministry of Defence" },
      data: { claim: `strike ${i}` },
    };
  const target = ownReports.splice(Math.max(0, ownReports.length - 3), 1)[0];
  if (!target)
    return {
      eventId,
      type: "StatementMade",
      source: AP,
      attributedTo: who,
      data: { quote: "no comment", stance: "neutral" },
    };
  return {
    eventId,
    type: "ReportRetracted",
    source: AP,
    attributedTo: who,
    data: { targetEventId: target, reason: "recount" },
  };
}

/** One writer posting statements only, for `ms`: appends per second. */
async function statementsOnly(ms: number, tag: string): Promise<number> {
  const until = performance.now() + ms;
  let n = 0;
  while (performance.now() < until) {
    await post({
      type: "StatementMade",
      source: AP,
      attributedTo: { name: "Solo" },
      data: { quote: `${tag} ${n}`, stance: "neutral" },
    });
    n += 1;
  }
  return (n / ms) * 1000;
}

await post({
  type: "IncidentOpened",
  source: AP,
  data: { title: "E2E siege", kind: "shelling", location: { name: "City", country: "UA" } },
});
const rows: string[] = [];
const early = [];
for (let i = 0; i < 19; i++) early.push(post(envelope(0, 100_000 + i, [])));
await Promise.all(early);
const pageStart = await timedGet(`/view/${ID}`);
const summaryStart = await timedGet(`/incidents/${ID}`, 20);
const first = await statementsOnly(5_000, "start");
process.stdout.write(
  `start: page ${pageStart.ms.toFixed(1)} ms ${(pageStart.bytes / 1024).toFixed(0)} KB, summary ${summaryStart.ms.toFixed(1)} ms, statements ${first.toFixed(0)}/s\n`,
);

let posted = 0;
const windows: number[] = [];
let windowStart = performance.now();
let windowCount = 0;
await Promise.all(
  Array.from({ length: WRITERS }, async (_, writer) => {
    const own: string[] = [];
    for (let i = writer; posted < total; i += WRITERS) {
      posted += 1;
      await post(envelope(writer, i, own));
      windowCount += 1;
      if (windowCount === 1000) {
        windows.push((1000 / (performance.now() - windowStart)) * 1000);
        process.stdout.write(
          `window ${windows.length}: ${windows[windows.length - 1]?.toFixed(0)} appends/s\n`,
        );
        windowStart = performance.now();
        windowCount = 0;
      }
    }
  }),
);
const head = JSON.parse((await send("GET", `/incidents/${ID}`)).text).version as number;
const last = await statementsOnly(5_000, "end");
process.stdout.write(`end: statements ${last.toFixed(0)}/s at ${head} events\n`);
const pageEnd = await timedGet(`/view/${ID}`, 3);
const summaryEnd = await timedGet(`/incidents/${ID}`, 20);
const past = await timedGet(`/incidents/${ID}?version=3000`, 10);

rows.push(
  `incident ${ID}: ${head} events after the 4-writer load`,
  `appends/s per window of 1,000 (4 writers): ${windows.map((w) => w.toFixed(0)).join(", ")}`,
  `one writer, statements only (5 s): ${first.toFixed(0)}/s at the start, ${last.toFixed(0)}/s at ${head} events`,
  `incident page: ${pageStart.ms.toFixed(1)} ms, ${(pageStart.bytes / 1024).toFixed(0)} KB at 20 events; ${pageEnd.ms.toFixed(1)} ms, ${(pageEnd.bytes / 1024).toFixed(0)} KB at ${head}`,
  `summary read: ${summaryStart.ms.toFixed(1)} ms at 20 events; ${summaryEnd.ms.toFixed(1)} ms at ${head}`,
  `past version ?version=3000: ${past.ms.toFixed(1)} ms at ${head}`,
);
process.stdout.write(`${rows.join("\n")}\n`);
client.close();
