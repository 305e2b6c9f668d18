import { Worker } from "node:worker_threads";

/**
 * The request thread's handle on the store thread (dynalite-worker.mjs): dynalite and its
 * LevelDB, reached over loopback exactly as before, on a thread (and core) of its own.
 */
export class DynaliteThread {
  private readonly worker: Worker;
  private closing = false;
  private dead = false;
  readonly endpoint: Promise<string>;

  constructor(
    options: { port: number; host: string; path?: string },
    /** The thread ended without being asked to: nothing would be stored any more. */
    onDeath: (error: Error) => void,
  ) {
    this.worker = new Worker(new URL("./dynalite-worker.mjs", import.meta.url), { workerData: options });
    let started = false;
    this.endpoint = new Promise((resolve, reject) => {
      this.worker.once("message", (message: { port: number }) => {
        started = true;
        resolve(`http://${options.host}:${message.port}`);
      });
      const died = (error: Error) => {
        if (this.dead) return;
        this.dead = true;
        if (!started) reject(error);
        else if (!this.closing) onDeath(error);
      };
      this.worker.on("error", died);
      this.worker.on("exit", (code) => died(new Error(`the store thread (dynalite) exited (code ${code})`)));
    });
  }

  /** Stops dynalite and waits for LevelDB to be flushed and closed. */
  async close(): Promise<void> {
    if (this.dead) return;
    this.closing = true;
    await new Promise<void>((resolve) => {
      this.worker.once("message", () => resolve());
      this.worker.postMessage("close");
    });
    await this.worker.terminate();
  }

  /** Ends the thread at once, as a crash would (tests of what the request thread does then). */
  kill(): Promise<number> {
    return this.worker.terminate();
  }
}
