import { parentPort, workerData } from "node:worker_threads";
import type { StoredEvent } from "../../events/stored-event.js";
import type { EventLookup } from "../history-fold.js";
import {
  type FoldRead,
  type FoldWorkerData,
  type FromFold,
  fromFoldItem,
  type ToFold,
} from "./view-fold-protocol.js";
import { ScanFolds } from "./view-rebuild.js";

/**
 * The rebuild's fold thread (view-fold-thread.ts starts it): parses and folds the pages of the
 * scan, and packs each view and snapshot, while the rebuild's own thread reads and writes. The
 * rare store read a fold step needs is asked of the rebuild's thread.
 */
const port = parentPort;
if (!port) throw new Error("view-fold-worker.ts runs as a worker thread (view-fold-thread.ts starts it)");
const send = (message: FromFold) => port.postMessage(message);

let nextRead = 1;
const reads = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
const ask = <T>(read: FoldRead): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const id = nextRead++;
    reads.set(id, { resolve: resolve as (value: unknown) => void, reject });
    send({ type: "read", id, read });
  });
const lookup: EventLookup = {
  eventsBetween: (incidentId, after, last) =>
    ask<StoredEvent[]>({ method: "eventsBetween", incidentId, after, last }),
  findEvent: (incidentId, eventId) => ask<StoredEvent | null>({ method: "findEvent", incidentId, eventId }),
};

const folds = new ScanFolds(
  lookup,
  {
    addSnapshot: (snapshot) => void send({ type: "snapshot", snapshot }),
    addView: (view) => void send({ type: "view", view }),
  },
  (workerData as FoldWorkerData).segments,
);

const answer = (id: number, work: Promise<unknown>) =>
  work.then(
    (outcome) => send({ type: "done", id, ...(outcome ? { outcome } : {}) } as FromFold),
    (error: unknown) => send({ type: "done", id, error: String(error) }),
  );

port.on("message", (message: ToFold) => {
  switch (message.type) {
    case "page":
      return void answer(message.id, folds.page(message.segment, message.items.map(fromFoldItem)));
    case "end":
      return void answer(message.id, folds.end(message.segment));
    case "outcome":
      return void answer(message.id, folds.outcome());
    case "answer": {
      const pending = reads.get(message.id);
      reads.delete(message.id);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.value);
      return;
    }
  }
});
send({ type: "ready" });
