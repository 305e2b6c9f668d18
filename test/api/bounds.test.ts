import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AP, call, post, TOKEN } from "../support/archive.js";
import { type ChildServer, startChildServer } from "../support/child-server.js";

/**
 * The worst a writer can post, within every limit the API has (25 events a batch, 50
 * categories a report, 256 KiB a body, the longest texts), and every route read back: each
 * answer stays within the contract's bounds, and the server keeps answering /health while
 * readers load the heaviest page.
 */

// A server of its own (npm start), so that the readers' work in this process does not slow it.
let archive: ChildServer;
const dataDir = mkdtempSync(join(tmpdir(), "ledger-bounds-"));
const KB = 1024;
/** Three, so that their summaries together pass a listing page's 512 KB. */
const INCIDENTS = ["worst-case-a", "worst-case-b", "worst-case-c"];
const QUIET_SPEAKER = "Olena Quiet";

/**
 * Text of at most `n` UTF-16 units (the API's measure), part of it outside the Basic
 * Multilingual Plane (4 UTF-8 bytes each), never cut inside a surrogate pair.
 */
function long(n: number, seed: string): string {
  let text = `${seed} `;
  while (text.length + 3 <= n) text += "𝕏é";
  return text.padEnd(n, "x").slice(0, n);
}
const bytes = (text: string) => Buffer.byteLength(text);
const categories = Array.from(
  { length: 64 },
  (_, i) => `c${String.fromCharCode(97 + (i % 26))}${"x".repeat(Math.floor(i / 26))}`,
);

function report(source: number, batch: number, cats: string[]) {
  return {
    type: "CasualtiesReported",
    source: { publisher: long(300, `Publisher ${source}`), title: long(200, "t") },
    attributedTo: { name: long(300, `Source ${source}`), role: long(300, "role"), side: long(100, "side") },
    data: {
      figures: Object.fromEntries(
        cats.map((c, i) => [
          c,
          { value: source * 100 + batch + i, qualifier: "at-least", text: long(40, "t") },
        ]),
      ),
    },
  };
}

async function postBatch(id: string, events: unknown[]): Promise<void> {
  const body = JSON.stringify({ events });
  expect(bytes(body)).toBeLessThanOrEqual(256 * KB);
  const answer = await post(archive.url, id, body);
  expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(201);
}

async function worstIncident(id: string): Promise<void> {
  expect(
    (
      await post(archive.url, id, {
        type: "IncidentOpened",
        source: AP,
        data: {
          title: long(500, "Title"),
          kind: "missile-strike",
          location: {
            name: long(300, "Place"),
            region: long(300, "Region"),
            country: "UA",
            lat: 48.7,
            lon: 37.5,
          },
          description: long(20_000, "Description"),
        },
      })
    ).status,
  ).toBe(201);
  // Many sources, each reporting 50 categories; between them all 64 the incident may hold.
  for (let batch = 0; batch < 5; batch++) {
    const cats = batch % 2 === 0 ? categories.slice(0, 50) : categories.slice(14, 64);
    await postBatch(
      id,
      Array.from({ length: 25 }, (_, i) => report(batch * 25 + i, batch, cats)),
    );
  }
  // Denials with the longest texts, and a long list of assessments of one of them.
  const denials: string[] = [];
  for (let batch = 0; batch < 5; batch++) {
    const events = Array.from({ length: 25 }, (_, i) => {
      const eventId = `${id}-denial-${batch}-${i}`;
      denials.push(eventId);
      return {
        eventId,
        type: "DenialIssued",
        source: AP,
        attributedTo: { name: long(300, `Denier ${i}`), role: long(300, "role") },
        data: { claim: long(1200, "claim"), counterClaim: long(1200, "counter"), quote: long(1500, "q") },
      };
    });
    await postBatch(id, events);
  }
  for (let batch = 0; batch < 5; batch++)
    await postBatch(
      id,
      Array.from({ length: 25 }, (_, i) => ({
        type: "ClaimAssessed",
        source: AP,
        attributedTo: { name: long(300, `Assessor ${i}`) },
        data: { targetEventId: denials[0], verdict: "disputed", reasoning: long(2000, "because") },
      })),
    );
  // Statements with long quotes, and retractions of many of the reports' neighbours.
  const statements: string[] = [];
  for (let batch = 0; batch < 5; batch++)
    await postBatch(
      id,
      Array.from({ length: 25 }, (_, i) => {
        const eventId = `${id}-statement-${batch}-${i}`;
        statements.push(eventId);
        return {
          eventId,
          type: "StatementMade",
          source: AP,
          attributedTo: { name: long(300, `Speaker ${i}`) },
          data: {
            quote: long(2000, "quote"),
            stance: "condemns",
            accuses: long(300, "x"),
            channel: long(300, "y"),
          },
        };
      }),
    );
  // One short statement by a speaker who says nothing else: a source page's row of this incident is small.
  await postBatch(id, [
    {
      type: "StatementMade",
      source: AP,
      attributedTo: { name: QUIET_SPEAKER },
      data: { quote: "Short.", stance: "neutral" },
    },
  ]);
  for (let batch = 0; batch < 5; batch++)
    await postBatch(
      id,
      statements.slice(batch * 21, batch * 21 + 21).map((targetEventId) => ({
        type: "ReportRetracted",
        source: AP,
        attributedTo: { name: long(300, "Retractor") },
        data: { targetEventId, reason: long(2000, "reason") },
      })),
    );
}

beforeAll(async () => {
  archive = await startChildServer({ LEDGER_TOKEN: TOKEN, DATA_DIR: dataDir, LOG_LEVEL: "info" });
  for (const id of INCIDENTS) await worstIncident(id);
}, 600_000);
afterAll(async () => {
  if (archive && archive.process.exitCode === null) {
    const exited = new Promise((resolve) => archive.process.once("exit", resolve));
    archive.process.kill("SIGTERM");
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

async function size(path: string): Promise<{ status: number; bytes: number; text: string }> {
  const response = await fetch(`${archive.url}${path}`);
  const text = await response.text();
  return { status: response.status, bytes: bytes(text), text };
}

describe("the worst a writer can post", () => {
  const id = INCIDENTS[0] as string;

  it("refuses a 65th category, naming the field, and stores nothing", async () => {
    const before = (await call(archive.url, "GET", `/incidents/${id}`)).body.version;
    const answer = await post(archive.url, id, {
      type: "CasualtiesReported",
      source: AP,
      attributedTo: { name: "One more" },
      data: { figures: { killed: { value: 1, qualifier: "exact" }, cb: { value: 1, qualifier: "exact" } } },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual([expect.objectContaining({ path: "data.figures.killed" })]);
    expect((await call(archive.url, "GET", `/incidents/${id}`)).body.version).toBe(before);
    // A category it already holds is still fine.
    const known = await post(archive.url, id, {
      type: "CasualtiesReported",
      source: AP,
      attributedTo: { name: "One more" },
      data: { figures: { ca: { value: 1, qualifier: "exact" } } },
    });
    expect(known.status).toBe(201);
  });

  it("keeps the summary under 256 KB, each list at most 100 entries beside its count", async () => {
    const read = await size(`/incidents/${id}`);
    expect(read.status).toBe(200);
    expect(read.bytes).toBeLessThanOrEqual(256 * KB);
    const summary = JSON.parse(read.text);
    expect(Object.keys(summary.casualties)).toHaveLength(64);
    for (const c of Object.values(summary.casualties) as { bySource: unknown[]; sourceCount: number }[]) {
      expect(c.bySource.length).toBeLessThanOrEqual(100);
      expect(c.sourceCount).toBeGreaterThanOrEqual(50);
    }
    expect(summary.denials.length).toBeLessThanOrEqual(100);
    expect(summary.denialCount).toBe(125);
    for (const d of summary.denials) expect(d.assessments.length).toBeLessThanOrEqual(100);
    expect(summary.retractedEventIds.length).toBeLessThanOrEqual(100);
    expect(summary.retractedCount).toBe(105);
    // 125 long statements, 105 of them retracted, and the quiet speaker's one.
    expect(summary.statements.count).toBe(21);
  });

  it("pages every list whole at the incident's sub-resources", async () => {
    const collect = async (path: string) => {
      const items: unknown[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 100; pages++) {
        const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
        const answer = await call(archive.url, "GET", `${path}${query}`);
        expect(answer.status).toBe(200);
        expect(answer.body.items.length).toBeLessThanOrEqual(100);
        items.push(...answer.body.items);
        cursor = answer.body.nextCursor;
        if (cursor === null) return items;
      }
      throw new Error(`${path} never ended`);
    };
    const summary = (await call(archive.url, "GET", `/incidents/${id}`)).body;
    expect(await collect(`/incidents/${id}/casualties/ca/sources`)).toHaveLength(
      summary.casualties.ca.sourceCount,
    );
    const denials = (await collect(`/incidents/${id}/denials`)) as { eventId: string }[];
    expect(denials).toHaveLength(125);
    const shown = summary.denials.map((d: { eventId: string }) => d.eventId);
    expect(denials.slice(denials.length - shown.length).map((d) => d.eventId)).toEqual(shown);
    expect(await collect(`/incidents/${id}/retractions`)).toHaveLength(105);
    const statements = (await collect(`/incidents/${id}/statements`)) as { eventId: string }[];
    expect(statements).toHaveLength(21);
    expect((await call(archive.url, "GET", `/incidents/${id}/casualties/nothing/sources`)).status).toBe(404);
  });

  it("keeps the incident page under 1 MB, now and as it stood, and every timeline page", async () => {
    const head = (await call(archive.url, "GET", `/incidents/${id}`)).body.version;
    for (const path of [
      `/view/${id}`,
      `/view/${id}?version=${head - 1}`,
      `/view/${id}?version=152`,
      `/view/${id}?before=100`,
      `/view/${id}?before=30`,
    ]) {
      const page = await size(path);
      expect(page.status, path).toBe(200);
      expect(page.bytes, path).toBeLessThanOrEqual(1024 * KB);
    }
  });

  it("keeps a listing page under 512 KB, searched or not: one that would pass it ends early, with a cursor", async () => {
    const { grade } = (await call(archive.url, "GET", `/incidents/${INCIDENTS[0]}`)).body;
    const graded = `grade=${grade.given?.grade ?? grade.suggested}`;
    // The listing, a one-word search (a walk of its list) and a two-word one (a ranked window);
    // with a grade, each page gathers several pages of matches.
    for (const listing of [
      `/incidents?limit=100&${graded}`,
      `/incidents?q=title&limit=100&${graded}`,
      "/incidents?limit=100",
      "/incidents?q=title&limit=100",
      "/incidents?q=title+place&limit=100",
    ]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      for (; pages < 10; pages++) {
        const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const page = await size(`${listing}${query}`);
        expect(page.status, listing).toBe(200);
        expect(page.bytes, listing).toBeLessThanOrEqual(512 * KB);
        const body = JSON.parse(page.text);
        seen.push(...body.items.map((s: { incidentId: string }) => s.incidentId));
        cursor = body.nextCursor;
        if (!cursor) break;
      }
      expect(seen.sort(), listing).toEqual([...INCIDENTS].sort());
      // The three summaries together pass the budget: the first page ends early.
      expect(pages, listing).toBeGreaterThan(0);
    }
    const dashboard = await size("/");
    expect(dashboard.status).toBe(200);
    expect(dashboard.bytes).toBeLessThanOrEqual(1024 * KB);
  });

  it("cuts a page by what it shows, not by the summaries it read: the dashboard, the map and a source's page hold all three", async () => {
    const shown = (html: string, pattern: RegExp) =>
      [...new Set([...html.matchAll(pattern)].map((m) => m[1]))].sort();
    for (const path of ["/", "/?q=title"]) {
      const dashboard = await size(path);
      expect(dashboard.status, path).toBe(200);
      expect(shown(dashboard.text, /data-incident="([^"]+)"/g), path).toEqual([...INCIDENTS].sort());
      expect(dashboard.text, path).not.toContain("cursor=");
    }
    const map = await size("/map");
    expect(map.status).toBe(200);
    expect(shown(map.text, /href="\/view\/(worst-case-[a-c])"/g)).toEqual([...INCIDENTS].sort());
    expect(map.bytes).toBeLessThanOrEqual(1024 * KB);
    // The quiet speaker's rows are a line each: one answer holds all three, well within the listing's bytes.
    const source = await size(`/sources/${encodeURIComponent(QUIET_SPEAKER)}?limit=3`);
    expect(source.status).toBe(200);
    const body = JSON.parse(source.text);
    expect(body.items.map((r: { incidentId: string }) => r.incidentId).sort()).toEqual([...INCIDENTS].sort());
    expect(body.nextCursor).toBeNull();
    expect(source.bytes).toBeLessThan(64 * KB);
  });

  it("keeps the events' pages and the feed within 1 MB", async () => {
    for (const path of [`/incidents/${id}/events?limit=500`, "/feed?limit=1000"]) {
      const page = await size(path);
      expect(page.status, path).toBe(200);
      expect(page.bytes, path).toBeLessThanOrEqual(1024 * KB);
    }
  });

  it("answers /health while eight readers load that incident's page, long before their pages", async () => {
    let reading = true;
    const pageTimes: number[] = [];
    const readers = Array.from({ length: 8 }, async () => {
      while (reading) {
        const started = performance.now();
        const page = await size(`/view/${id}`);
        expect(page.status).toBe(200);
        pageTimes.push(performance.now() - started);
      }
    });
    // Let the readers get going, then ask for health several times among them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const health = await fetch(`${archive.url}/health`);
      expect(health.status).toBe(200);
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    reading = false;
    await Promise.all(readers);
    // Held against the pages themselves, not a clock: on a shared machine both slow together.
    // A server that built each page without giving its loop a turn would answer /health only
    // after every page queued ahead of it, later than half of the pages; one that yields answers
    // among them. That a long fold gives the loop turns is tested exactly in
    // functions/history-fold.test.ts.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    expect(pageTimes.length).toBeGreaterThanOrEqual(8);
    expect(median(times), `health ${times.map(Math.round)}; pages ${pageTimes.map(Math.round)}`).toBeLessThan(
      median(pageTimes) / 2,
    );
  });
});
