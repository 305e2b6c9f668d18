import { type LocalStore, listenDynalite } from "./dynalite-store.js";
import type { StoreAnswer, StoreMessage, StoreRequest } from "./store-process.js";

// The store process (store-process.ts says why there is one): dynalite, stopped by its parent.
// Ctrl-C reaches the whole process group: the archive stops first (its last writes still need
// the store), then closes the channel, and the store closes LevelDB and exits.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {});

let store: LocalStore | undefined;
process.once("disconnect", async () => {
  await store?.close();
  process.exit(0);
});
const say = (message: StoreMessage | StoreAnswer, then: () => void = () => {}) =>
  process.send?.(message, then);
const text = (error: unknown) => (error instanceof Error ? error.message : String(error));

// The archive's requests once the store listens (store-process.ts): each answered by its id.
process.on("message", async ({ id, compact }: StoreRequest) => {
  try {
    if (!store) throw new Error("the store is not listening yet");
    await store.compact(compact);
    say({ id, done: true });
  } catch (error) {
    say({ id, failed: text(error) });
  }
});

try {
  store = await listenDynalite(JSON.parse(process.argv[2] ?? "{}"));
  say({ endpoint: store.endpoint });
} catch (error) {
  say({ error: text(error) }, () => process.exit(1));
}
