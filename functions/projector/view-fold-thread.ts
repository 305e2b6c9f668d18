import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { threadId, Worker } from "node:worker_threads";
import type { EventLookup } from "../history-fold.js";
import type { Item } from "../store/commit-item.js";
import {
  type FoldRead,
  type FoldWorkerData,
  type FromFold,
  type ToFold,
  toFoldItem,
} from "./view-fold-protocol.js";
import { type FoldSink, type PageFolder, ScanFolds, type ScanOutcome } from "./view-rebuild.js";

type Ask = ToFold extends infer T ? (T extends { type: "answer" } ? never : Omit<T, "id">) : never;

/**
 * The rebuild's fold on a second thread (view-fold-worker.ts): the pages of the scan go to it,
 * and the snapshots and views it packs come back, in order, to `sink` (the batched writes). The
 * fold, its parsing and packing and their garbage are most of a rebuild's work besides the
 * store's; on a machine with two cores they run beside the reads and writes instead of between
 * them. The fold's rare store reads are made here, with `events`.
 */
export class FoldThread implements PageFolder {
  private nextId = 1;
  private readonly replies = new Map<number, { resolve(v?: ScanOutcome): void; reject(e: Error): void }>();
  private dead: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly events: EventLookup,
    private readonly sink: FoldSink,
  ) {
    worker.on("message", (message: FromFold) => this.receive(message));
    const died = (error: Error) => {
      this.dead ??= error;
      for (const { reject } of this.replies.values()) reject(this.dead);
      this.replies.clear();
    };
    worker.on("error", died);
    worker.on("exit", (code) => died(new Error(`the fold thread exited (code ${code})`)));
  }

  /**
   * Starts the thread; null where it cannot start (a bundle carries no worker file beside it):
   * the caller then folds in its own thread.
   */
  static async start(events: EventLookup, sink: FoldSink, segments: number): Promise<FoldThread | null> {
    const data: FoldWorkerData = { segments };
    let worker: Worker;
    try {
      const code = await workerBundle();
      // Not the parent's loader flags (tsx's): the bundle is plain JavaScript, and a thread
      // that loads tsx first starts ~0.4 s later.
      worker = new Worker(code, { eval: true, workerData: data, execArgv: [] });
    } catch {
      return null;
    }
    let settle: (started: boolean) => void = () => {};
    const started = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    const ready = (message: FromFold) => settle(message.type === "ready");
    const failed = () => settle(false);
    worker.once("message", ready).once("error", failed).once("exit", failed);
    const ok = await started;
    // Only these listeners: the worker keeps listeners of its own on itself.
    worker.off("message", ready).off("error", failed).off("exit", failed);
    if (!ok) {
      await worker.terminate();
      return null;
    }
    return new FoldThread(worker, events, sink);
  }

  async page(segment: number, items: Item[]): Promise<void> {
    await this.ask({ type: "page", segment, items: items.map(toFoldItem) });
  }

  async end(segment: number): Promise<void> {
    await this.ask({ type: "end", segment });
  }

  async outcome(): Promise<ScanOutcome> {
    const outcome = await this.ask({ type: "outcome" });
    if (!outcome) throw new Error("the fold thread gave no outcome");
    return outcome;
  }

  async close(): Promise<void> {
    this.dead ??= new Error("the fold thread was closed");
    await this.worker.terminate();
  }

  private ask(message: Ask): Promise<ScanOutcome | undefined> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.replies.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id } as ToFold);
    });
  }

  private receive(message: FromFold): void {
    switch (message.type) {
      case "snapshot":
        // The batches wait for room before the next page goes over (scanAndFold), not here.
        void this.sink.addSnapshot(message.snapshot);
        return;
      case "view":
        void this.sink.addView(message.view);
        return;
      case "read":
        this.read(message.read).then(
          (value) => this.post({ type: "answer", id: message.id, value }),
          (error: unknown) => this.post({ type: "answer", id: message.id, error: String(error) }),
        );
        return;
      case "done": {
        const pending = this.replies.get(message.id);
        this.replies.delete(message.id);
        if (message.error !== undefined) pending?.reject(new Error(message.error));
        else pending?.resolve(message.outcome);
        return;
      }
      case "ready":
        return;
    }
  }

  private read(read: FoldRead) {
    return read.method === "findEvent"
      ? this.events.findEvent(read.incidentId, read.eventId)
      : this.events.eventsBetween(read.incidentId, read.after, read.last);
  }

  private post(message: ToFold): void {
    if (!this.dead) this.worker.postMessage(message);
  }
}

/**
 * The fold thread if it starts, else the folds in this thread; chosen before the first page is
 * folded, while the scan already reads the first page of each segment (the thread's start,
 * ~0.05 s, and the first bundle's, ~0.1–0.3 s, would otherwise come before any read).
 */
export class FoldThreadOrHere implements PageFolder {
  private readonly chosen: Promise<PageFolder>;
  private thread: FoldThread | null = null;

  constructor(events: EventLookup, sink: FoldSink, segments: number) {
    this.chosen = FoldThread.start(events, sink, segments).then((thread) => {
      this.thread = thread;
      return thread ?? new ScanFolds(events, sink, segments);
    });
  }

  async page(segment: number, items: Item[]): Promise<void> {
    await (await this.chosen).page(segment, items);
  }

  async end(segment: number): Promise<void> {
    await (await this.chosen).end(segment);
  }

  async outcome(): Promise<ScanOutcome> {
    return (await this.chosen).outcome();
  }

  /** Where the folds ran: "fold thread" or "this thread". */
  async where(): Promise<string> {
    await this.chosen;
    return this.thread ? "fold thread" : "this thread";
  }

  async close(): Promise<void> {
    await this.chosen;
    await this.thread?.close();
  }
}

let bundled: Promise<string> | undefined;

/**
 * The fold thread's code: view-fold-worker.ts and what it imports (the domain, the packing of
 * views), bundled by esbuild into one CommonJS script, once per process and kept in
 * node_modules/.cache for the next while none of its sources changed. A worker that loads the
 * TypeScript sources through tsx's hooks takes ~0.4 s to start here, the bundle ~0.05 s; making
 * the bundle takes 0.1–0.3 s (esbuild's start, mostly). Where esbuild or the sources are not at
 * hand (the view-repair Lambda's bundle), this rejects and the rebuild folds in its own thread.
 */
function workerBundle(): Promise<string> {
  bundled ??= (async () => (await cachedBundle()) ?? (await buildBundle()))();
  bundled.catch(() => {
    bundled = undefined;
  });
  return bundled;
}

const ROOT = new URL("../../", import.meta.url);
const CACHE = new URL("node_modules/.cache/incident-ledger/view-fold-worker.json", ROOT);

/** The cached bundle, with the size and time of every file it was made from. */
interface CachedBundle {
  inputs: Record<string, [mtimeMs: number, size: number]>;
  code: string;
}

async function cachedBundle(): Promise<string | null> {
  try {
    const cached = JSON.parse(await readFile(CACHE, "utf8")) as CachedBundle;
    // Built from this tree's files, not another checkout's sharing a copied node_modules.
    if (!(fileURLToPath(import.meta.url) in cached.inputs)) return null;
    for (const [path, [mtimeMs, size]] of Object.entries(cached.inputs)) {
      const now = await stat(path);
      if (now.mtimeMs !== mtimeMs || now.size !== size) return null;
    }
    return cached.code;
  } catch {
    return null;
  }
}

async function buildBundle(): Promise<string> {
  // A specifier esbuild does not follow when it bundles this file for a Lambda.
  const name = "esbuild";
  const esbuild = (await import(name)) as typeof import("esbuild");
  const root = fileURLToPath(ROOT);
  const out = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [fileURLToPath(new URL("./view-fold-worker.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = out.outputFiles[0]?.text;
  if (!code) throw new Error("esbuild made no fold thread bundle");
  // This file too: it holds the build's options.
  const paths = [
    fileURLToPath(import.meta.url),
    ...Object.keys(out.metafile.inputs).map((p) => join(root, p)),
  ];
  try {
    const inputs: CachedBundle["inputs"] = {};
    for (const path of paths) {
      const { mtimeMs, size } = await stat(path);
      inputs[path] = [mtimeMs, size];
    }
    const file = fileURLToPath(CACHE);
    await mkdir(dirname(file), { recursive: true });
    // Whole or not at all: another process may read it meanwhile.
    const partial = `${file}.${process.pid}.${threadId}`;
    await writeFile(partial, JSON.stringify({ inputs, code } satisfies CachedBundle));
    await rename(partial, file);
  } catch {
    // No cache: the next process builds again.
  }
  return code;
}
