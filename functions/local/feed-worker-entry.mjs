// The feed thread's entry: a worker thread starts without the parent's TypeScript loader
// (tsx's hooks, or vitest's), so it registers tsx's own before loading the worker module.
import { register } from "tsx/esm/api";

register();
await import("./feed-worker.ts");
