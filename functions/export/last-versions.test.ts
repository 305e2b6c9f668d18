import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IncidentVersion, lastVersionsById } from "./last-versions.js";

/** What the export did before runs were spilled: one map entry per incident, sorted at the end. */
function oracle(leaves: IncidentVersion[]): IncidentVersion[] {
  const last = new Map<string, number>();
  for (const leaf of leaves)
    if (leaf.version > (last.get(leaf.incidentId) ?? 0)) last.set(leaf.incidentId, leaf.version);
  return [...last.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((incidentId) => ({ incidentId, version: last.get(incidentId) as number }));
}

async function collect(source: AsyncIterable<IncidentVersion>): Promise<IncidentVersion[]> {
  const out: IncidentVersion[] = [];
  for await (const entry of source) out.push(entry);
  return out;
}

async function* from(leaves: IncidentVersion[]) {
  yield* leaves;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "last-versions-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Leaves as the log holds them: each incident's versions 1, 2, … in order, incidents interleaved.
const logLeaves = fc
  .array(fc.stringMatching(/^[a-z0-9-]{1,6}$/), { minLength: 0, maxLength: 300 })
  .map((ids) => {
    const next = new Map<string, number>();
    return ids.map((incidentId) => {
      const version = (next.get(incidentId) ?? 0) + 1;
      next.set(incidentId, version);
      return { incidentId, version };
    });
  });

describe("lastVersionsById", () => {
  it("given any leaves and any run size, when sorted through runs on disk, then it yields what one in-memory map would", async () => {
    await fc.assert(
      fc.asyncProperty(
        logLeaves,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 2, max: 5 }),
        async (leaves, runSize, fanIn) => {
          expect(await collect(lastVersionsById(from(leaves), { runSize, fanIn, dir }))).toEqual(
            oracle(leaves),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("given more incidents than a run holds, when merged in rounds, then ids repeated across runs keep their highest version and the disk is left clean", async () => {
    const leaves = Array.from({ length: 2000 }, (_, i) => ({
      incidentId: `incident-${String((i * 7919) % 500).padStart(4, "0")}`,
      version: Math.floor(i / 500) + 1,
    }));
    const sorted = await collect(lastVersionsById(from(leaves), { runSize: 37, fanIn: 3, dir }));
    expect(sorted).toHaveLength(500);
    expect(sorted.every((e) => e.version === 4)).toBe(true);
    expect(sorted).toEqual(oracle(leaves));
    expect(readdirSync(dir)).toEqual([]);
  });

  it("given a reader that stops early, when the generator is returned, then its run files are removed", async () => {
    const leaves = Array.from({ length: 300 }, (_, i) => ({ incidentId: `id-${i}`, version: 1 }));
    const sorted = lastVersionsById(from(leaves), { runSize: 10, fanIn: 4, dir });
    expect((await sorted.next()).value).toEqual({ incidentId: "id-0", version: 1 });
    expect(readdirSync(dir)).toHaveLength(1);
    await sorted.return(undefined);
    expect(readdirSync(dir)).toEqual([]);
  });
});
