import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export interface IncidentVersion {
  incidentId: string;
  version: number;
}

export interface LastVersionsOptions {
  /** Distinct incidents held in memory before they are sorted and spilled to a run file. */
  runSize?: number;
  /** Run files merged at once (open files); more runs are merged in rounds. */
  fanIn?: number;
  /** Where run files go (a fresh directory under it, removed at the end). */
  dir?: string;
}

const RUN_SIZE = 50_000;
const FAN_IN = 32;

// Plain code-unit order: ids are ASCII slugs, so no locale can reorder them.
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Each incident's highest version among the leaves, in order of incident id, with memory
 * bounded by `runSize` incidents whatever the archive holds: an external merge sort. Leaves
 * are folded into a map until it holds `runSize` incidents, which is then sorted and written
 * to a run file (one `id\tversion` line each); the runs are merged, the same id in several
 * runs keeping its highest version. An archive of fewer incidents never touches the disk.
 * Ids are slugs (a-z, 0-9, -), so a line holds exactly one id and one version.
 */
export async function* lastVersionsById(
  leaves: AsyncIterable<IncidentVersion>,
  options: LastVersionsOptions = {},
): AsyncGenerator<IncidentVersion> {
  const runSize = options.runSize ?? RUN_SIZE;
  const fanIn = Math.max(2, options.fanIn ?? FAN_IN);
  let map = new Map<string, number>();
  let dir: string | undefined;
  const runs: string[] = [];
  try {
    const spill = async () => {
      dir ??= await mkdtemp(join(options.dir ?? tmpdir(), "ledger-export-"));
      const file = join(dir, `run-${runs.length}`);
      const ids = [...map.keys()].sort(byId);
      await writeFile(file, ids.map((id) => `${id}\t${map.get(id)}\n`).join(""));
      runs.push(file);
      map = new Map();
    };
    for await (const leaf of leaves) {
      if (leaf.version > (map.get(leaf.incidentId) ?? 0)) map.set(leaf.incidentId, leaf.version);
      if (map.size >= runSize) await spill();
    }
    if (runs.length === 0) {
      for (const id of [...map.keys()].sort(byId)) yield { incidentId: id, version: map.get(id) as number };
      return;
    }
    if (map.size > 0) await spill();
    // Rounds of merging until one merge can read every run at once.
    let round = 0;
    while (runs.length > fanIn) {
      const group = runs.splice(0, fanIn);
      const file = join(dir as string, `merged-${round++}`);
      await writeRun(file, mergeRuns(group));
      await Promise.all(group.map((f) => rm(f, { force: true })));
      runs.push(file);
    }
    yield* mergeRuns(runs);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

async function* readRun(file: string): AsyncGenerator<IncidentVersion> {
  const lines = createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const tab = line.indexOf("\t");
      yield { incidentId: line.slice(0, tab), version: Number(line.slice(tab + 1)) };
    }
  } finally {
    lines.close();
  }
}

/** Merges sorted runs into one sorted sequence, one entry per id with its highest version. */
async function* mergeRuns(files: string[]): AsyncGenerator<IncidentVersion> {
  const readers = files.map(readRun);
  try {
    const heads = await Promise.all(readers.map((r) => r.next()));
    for (;;) {
      let least: string | undefined;
      for (const head of heads) {
        if (!head.done && (least === undefined || head.value.incidentId < least))
          least = head.value.incidentId;
      }
      if (least === undefined) return;
      let version = 0;
      for (let i = 0; i < heads.length; i++) {
        const head = heads[i] as IteratorResult<IncidentVersion>;
        if (!head.done && head.value.incidentId === least) {
          version = Math.max(version, head.value.version);
          heads[i] = await (readers[i] as AsyncGenerator<IncidentVersion>).next();
        }
      }
      yield { incidentId: least, version };
    }
  } finally {
    await Promise.all(readers.map((r) => r.return(undefined)));
  }
}

async function writeRun(file: string, entries: AsyncIterable<IncidentVersion>): Promise<void> {
  const out = createWriteStream(file);
  try {
    let batch = "";
    for await (const { incidentId, version } of entries) {
      batch += `${incidentId}\t${version}\n`;
      if (batch.length >= 64 * 1024) {
        if (!out.write(batch)) await once(out, "drain");
        batch = "";
      }
    }
    out.end(batch);
    await once(out, "finish");
  } finally {
    out.destroy();
  }
}
