import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LocalStore, StoreOptions } from "./dynalite-store.js";

/** What the store process says once, when it listens or cannot. */
export type StoreMessage = { endpoint: string } | { error: string };

/** What the archive asks of the store process after it listens, and its answer (by `id`). */
export type StoreRequest = { id: number; compact: string };
export type StoreAnswer = { id: number; done: true } | { id: number; failed: string };

/**
 * dynalite in a process of its own, as DynamoDB is a service of its own in AWS. `npm start`
 * runs it so: the store's work (LevelDB, parsing every request) then has a core of its own, and
 * the archive keeps answering readers while an import or a rebuild keeps the store busy.
 *
 * The store lives no longer than the archive: it stops when the IPC channel closes, which is
 * both how `close()` asks it to and what happens when the archive's process dies, however.
 * And the archive is told when the store stops first (`onLost`): serving on without it would
 * answer every request with an error.
 */
export async function startStoreProcess(
  options: StoreOptions & { onLost: (why: string) => void },
): Promise<LocalStore> {
  const { onLost, ...store } = options;
  const child = fork(fileURLToPath(new URL("./store-main.ts", import.meta.url)), [JSON.stringify(store)], {
    // The entry is TypeScript, as the archive is: the child loads it the way `npm start` does.
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const first = await new Promise<StoreMessage>((resolve) => {
    child.once("message", (message) => resolve(message as StoreMessage));
    child.once("exit", (code, signal) =>
      resolve({
        error: `the store process stopped (${signal ?? `exit ${code}`}) before it listened${
          store.dataDir
            ? `: is another npm start using DATA_DIR ${store.dataDir}? (its store holds the directory's lock)`
            : ""
        }`,
      }),
    );
  });
  if ("error" in first) {
    child.kill();
    throw new Error(`the local store could not start: ${first.error}`);
  }
  let closing = false;
  const asked = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let next = 0;
  child.on("message", (message: StoreAnswer) => {
    const waiting = asked.get(message.id);
    asked.delete(message.id);
    if ("failed" in message) waiting?.reject(new Error(message.failed));
    else waiting?.resolve();
  });
  child.once("exit", (code, signal) => {
    const why = `the store process (pid ${child.pid}) stopped: ${signal ?? `exit ${code}`}`;
    for (const waiting of asked.values()) waiting.reject(new Error(why));
    asked.clear();
    if (!closing) onLost(why);
  });
  return {
    endpoint: first.endpoint,
    compact(table) {
      return new Promise<void>((resolve, reject) => {
        const id = next++;
        asked.set(id, { resolve, reject });
        child.send({ id, compact: table } satisfies StoreRequest, (error) => {
          if (!error) return;
          asked.delete(id);
          reject(error);
        });
      });
    },
    async close() {
      closing = true;
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
