import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import dynalite from "dynalite";
// dynalite never closes its level iterators: this lets it (see the file).
import "./dynalite-iterators.js";

/** dynalite listening: the local stand-in for DynamoDB, wherever it runs. */
export interface LocalStore {
  /** What the SDK is pointed at (http://host:port). */
  endpoint: string;
  /**
   * Rewrites a table's files so that what was overwritten or deleted in it is gone from disk
   * (LevelDB keeps old values until it compacts them). Nothing to do for a store in memory.
   */
  compact(table: string): Promise<void>;
  /** Flushes and closes the store (LevelDB on disk). */
  close(): Promise<void>;
}

export interface StoreOptions {
  host: string;
  /** 0 picks a free one. */
  port: number;
  /** Where LevelDB keeps the tables; undefined keeps them in memory. */
  dataDir?: string;
}

/** The part of dynalite's level database (classic-level on disk) that compaction needs. */
interface LevelDatabase {
  supports: { additionalMethods: Record<string, unknown> };
  compactRange(start: string, end: string): Promise<void>;
}

const dynaliteDb = createRequire(import.meta.url)("dynalite/db") as {
  create: (options: unknown) => { db: LevelDatabase };
};

/**
 * dynalite with the level database it opens: its HTTP API has no compaction, and the database
 * is made inside `dynalite()` (db.create, called once, synchronously), so it is taken there.
 */
function dynaliteWithDatabase(options: object): {
  server: ReturnType<typeof dynalite>;
  level: LevelDatabase;
} {
  const create = dynaliteDb.create;
  let level: LevelDatabase | undefined;
  dynaliteDb.create = (o) => {
    const made = create(o);
    level = made.db;
    return made;
  };
  try {
    const server = dynalite(options);
    if (!level) throw new Error("dynalite made no database");
    return { server, level };
  } finally {
    dynaliteDb.create = create;
  }
}

/** Starts dynalite in this process. */
export async function listenDynalite(options: StoreOptions): Promise<LocalStore> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const { server: store, level } = dynaliteWithDatabase({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir ? { path: options.dataDir } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    store.once("error", reject);
    store.listen(options.port, options.host, () => resolve());
  });
  return {
    endpoint: `http://${options.host}:${(store.address() as AddressInfo).port}`,
    async compact(table) {
      // In memory an overwritten value is unreachable at once; only LevelDB keeps it in files.
      if (!level.supports.additionalMethods.compactRange) return;
      // dynalite keys a table's items `item-<table>~<key>`: '\x7f' is the character after '~'.
      await level.compactRange(`item-${table}~`, `item-${table}\x7f`);
    },
    close: () => new Promise<void>((resolve) => store.close(() => resolve())),
  };
}
