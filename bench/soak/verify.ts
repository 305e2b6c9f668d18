import { httpClient } from "../lib/http-client.js";
import { sleep } from "./server.js";

export interface Readback {
  /** eventId → how many times it is stored, over every incident. */
  stored: Map<string, number>;
  storedCount: number;
  heads: Map<string, number>;
  chainsOk: number;
  badChains: string[];
}

interface Page {
  items: { eventId: string; version: number }[];
  next: number | null;
}

/** Reads every incident back through the API: its events, page by page, and its chain check. */
export async function readBack(url: string, incidents: readonly string[]): Promise<Readback> {
  const client = httpClient(url, 4);
  const stored = new Map<string, number>();
  const heads = new Map<string, number>();
  const badChains: string[] = [];
  let storedCount = 0;
  let chainsOk = 0;
  for (const incidentId of incidents) {
    let after = 0;
    for (let page = 0; page < 10_000; page++) {
      const answer = await client.send("GET", `/incidents/${incidentId}/events?after=${after}&limit=500`);
      if (answer.status === 404) break;
      if (answer.status !== 200)
        throw new Error(`GET events of ${incidentId}: ${answer.status} ${answer.text}`);
      const body = JSON.parse(answer.text) as Page;
      for (const event of body.items) {
        stored.set(event.eventId, (stored.get(event.eventId) ?? 0) + 1);
        storedCount += 1;
        heads.set(incidentId, event.version);
      }
      if (body.next === null) break;
      after = body.next;
    }
    const verify = await client.send("GET", `/incidents/${incidentId}/verify`);
    const check =
      verify.status === 200 ? (JSON.parse(verify.text) as { ok: boolean; version: number }) : null;
    if (check?.ok && check.version === (heads.get(incidentId) ?? 0)) chainsOk += 1;
    else badChains.push(`${incidentId} (${verify.status} ${verify.text.slice(0, 120)})`);
  }
  client.close();
  return { stored, storedCount, heads, chainsOk, badChains };
}

/** Waits (bounded) until every incident's summary stands at its head version. */
export async function viewsCaughtUp(
  url: string,
  heads: Map<string, number>,
  timeoutMs: number,
): Promise<{ agree: number; disagree: string[]; seconds: number }> {
  const client = httpClient(url, 4);
  const started = performance.now();
  let behind = [...heads.keys()];
  const versions = new Map<string, number>();
  while (behind.length > 0 && performance.now() - started < timeoutMs) {
    const still: string[] = [];
    for (const incidentId of behind) {
      const answer = await client.send("GET", `/incidents/${incidentId}`);
      const version = answer.status === 200 ? (JSON.parse(answer.text) as { version: number }).version : 0;
      versions.set(incidentId, version);
      if (version !== heads.get(incidentId)) still.push(incidentId);
    }
    behind = still;
    if (behind.length > 0) await sleep(200);
  }
  client.close();
  return {
    agree: heads.size - behind.length,
    disagree: behind.map((id) => `${id} (view ${versions.get(id)}, head ${heads.get(id)})`),
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  };
}
