import { gzipSync } from "node:zlib";
import { contentFingerprint, EMPTY_HEAD, sealEvents } from "../../events/stored-event.js";
import { summarize } from "../../events/summarize.js";
import { fold } from "../../events/summary.js";
import { parseAppendBody } from "../../events/validate.js";
import { commitToItem } from "../../functions/store/commit-item.js";
import { reportEnvelope } from "../lib/fixtures.js";
import { sealIncident } from "../lib/history.js";
import { envelope } from "../lib/seed.js";

/** Per-call costs of the pure steps a projection and a read do, at a few incident sizes: tsx bench/profile/micro.ts */
const time = (label: string, n: number, task: () => unknown) => {
  for (let i = 0; i < Math.min(n, 200); i++) task();
  const started = performance.now();
  for (let i = 0; i < n; i++) task();
  process.stdout.write(
    `${label.padEnd(44)} ${(((performance.now() - started) / n) * 1000).toFixed(1).padStart(8)} µs\n`,
  );
};
const body = JSON.stringify(reportEnvelope(1, "micro-event-0001"));
const parsed = envelope(reportEnvelope(1, "micro-event-0001"));
const seal = () =>
  sealEvents(EMPTY_HEAD, [parsed], {
    incidentId: "micro",
    recordedBy: "w",
    now: new Date().toISOString(),
    newEventId: () => "x",
  });
process.stdout.write("one append's pure CPU (a report of 0.7 KB)\n");
time("JSON.parse + parseAppendBody (zod)", 5000, () => parseAppendBody(JSON.parse(body)));
time("contentFingerprint (canonical JSON + SHA-256)", 5000, () => contentFingerprint("micro", parsed));
time("sealEvents (canonical JSON + SHA-256)", 5000, seal);
time("commitToItem", 5000, () => {
  const events = seal();
  return commitToItem({ incidentId: "micro", version: 1, lastVersion: 1, events, token: "bench" });
});
time("crypto.randomUUID", 5000, () => crypto.randomUUID());

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
for (const size of [30, 100, 1000]) {
  const events = sealIncident(`micro-${size}`, size);
  const state = fold(`micro-${size}`, events);
  const texts = events.map((e) => JSON.stringify(e));
  const n = size >= 1000 ? 50 : 500;
  const stateJson = JSON.stringify(state);
  const packed = gzipSync(stateJson, { level: 1 }).length;
  const summaryJson = JSON.stringify(summarize(state)).length;
  const commits = texts.reduce((n, t) => n + t.length, 0);
  process.stdout.write(
    `\n${size} events: stored events ${kb(commits)}; view item: summary ${kb(summaryJson)} + state ${kb(stateJson.length)} gzipped to ${kb(packed)}\n`,
  );
  time("JSON.parse of every stored event", n, () => texts.map((t) => JSON.parse(t)));
  time("fold all events", n, () => fold(`micro-${size}`, events));
  time("fold one event onto the state (structuredClone)", n, () => fold(`micro-${size}`, [], state));
  time("summarize(state)", n, () => summarize(state));
  time("JSON.stringify(summary)", n, () => JSON.stringify(summarize(state)));
  time("JSON.stringify(state) + gzipSync level 1", n, () => gzipSync(JSON.stringify(state), { level: 1 }));
}
