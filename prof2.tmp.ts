import { startArchive, post, AP } from "./test/support/archive.js";
async function main() {
function long(n: number, seed: string): string { let t = `${seed} `; while (t.length + 3 <= n) t += "𝕏é"; return t.padEnd(n, "x").slice(0, n); }
const categories = Array.from({ length: 64 }, (_, i) => `c${String.fromCharCode(97 + (i % 26))}${"x".repeat(Math.floor(i / 26))}`);
const a = await startArchive();
const id = "prof-a";
await post(a.url, id, { type: "IncidentOpened", source: AP, data: { title: "t", kind: "missile-strike", location: { name: "p", country: "UA" } } });
for (let batch = 0; batch < 5; batch++) {
  const cats = batch % 2 === 0 ? categories.slice(0, 50) : categories.slice(14, 64);
  const events = Array.from({ length: 25 }, (_, i) => ({ type: "CasualtiesReported", source: { publisher: long(300, `P${batch*25+i}`) }, attributedTo: { name: long(300, `S${batch*25+i}`), role: long(300, "r") }, data: { figures: Object.fromEntries(cats.map((c, k) => [c, { value: k, qualifier: "at-least", text: long(40, "t") }])) } }));
  let t = performance.now();
  const r = await post(a.url, id, { events });
  const t1 = performance.now() - t; t = performance.now();
  await fetch(`${a.url}/incidents/${id}`).then((r) => r.text());
  const t2 = performance.now() - t; t = performance.now();
  const page = await fetch(`${a.url}/view/${id}`).then((r) => r.text());
  console.log(batch, r.status, Math.round(t1), "summary", Math.round(t2), "page", Math.round(performance.now() - t), page.length);
}
const { packSnapshot } = await import("./functions/store/view-items.js");
const { summarize } = await import("./events/summarize.js");
const st = await a.ledger.reader.stateAt(id, { at: "current" });
console.log("state gz", packSnapshot(st!).state.length, "summary", JSON.stringify(summarize(st!)).length, "state json", JSON.stringify(st).length);
const stored = await a.ledger.views.getSummaryJson(id);
console.log("stored view", stored?.version, st?.version);
const { Session } = await import("node:inspector/promises");
const session = new Session(); session.connect();
await session.post("Profiler.enable"); await session.post("Profiler.start");
let t0 = performance.now();
for (let i = 0; i < 5; i++) { const r = await fetch(`${a.url}/view/${id}`); await r.text(); console.log(r.status); }
console.log("5 pages", Math.round(performance.now() - t0));
const { profile } = await session.post("Profiler.stop");
const self = new Map();
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) { const n = byId.get(profile.samples[i]); const k = `${n.callFrame.functionName} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0)); }
console.log([...self.entries()].sort((x, y) => y[1] - x[1]).slice(0, 16).map(([k, v]) => `${Math.round(v / 1000)}ms ${k}`).join("\n"));
await a.close();
}
main();
