// The store thread of `npm start`: dynalite with its LevelDB and nothing else, so that a store
// call waits for the store only (not for a projection or a log pass) and the request thread
// serves HTTP while LevelDB works. Plain JavaScript: it needs no TypeScript loader.
import { mkdirSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import dynalite from "dynalite";

const { port, host, path } = workerData;
if (path) mkdirSync(path, { recursive: true });
const store = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, ...(path ? { path } : {}) });
await new Promise((resolve, reject) => {
  store.once("error", reject);
  store.listen(port, host, resolve);
});
parentPort.on("message", (message) => {
  // dynalite's close stops the HTTP server, then waits for LevelDB to flush and close.
  if (message === "close") store.close(() => parentPort.postMessage("closed"));
});
parentPort.postMessage({ port: store.address().port });
