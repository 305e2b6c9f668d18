import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LocalStore, StoreOptions } from "./dynalite-store.js";

/** What the store process says once, when it listens or cannot. */
export type StoreMessage = { endpoint: string } | { error: string };

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
      resolve({ error: `the store process stopped (${signal ?? `exit ${code}`}) before it listened` }),
    );
  });
  if ("error" in first) {
    child.kill();
    throw new Error(`the local store could not start: ${first.error}`);
  }
  let closing = false;
  child.once("exit", (code, signal) => {
    if (!closing) onLost(`the store process (pid ${child.pid}) stopped: ${signal ?? `exit ${code}`}`);
  });
  return {
    endpoint: first.endpoint,
    async close() {
      closing = true;
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
