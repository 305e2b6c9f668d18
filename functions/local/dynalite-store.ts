import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import dynalite from "dynalite";
// dynalite never closes its level iterators: this lets it (see the file).
import "./dynalite-iterators.js";

/** dynalite listening: the local stand-in for DynamoDB, wherever it runs. */
export interface LocalStore {
  /** What the SDK is pointed at (http://host:port). */
  endpoint: string;
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

/** Starts dynalite in this process. */
export async function listenDynalite(options: StoreOptions): Promise<LocalStore> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const store = dynalite({
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
    close: () => new Promise<void>((resolve) => store.close(() => resolve())),
  };
}
