import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { createServer } from "node:net";

/** A free TCP port on loopback (asked of the OS, then released for the child to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerEnv {
  port: number;
  dynamoPort: number;
  dataDir: string;
  token: string;
  logFile: string;
}

/**
 * `npm start`'s entry (functions/local/main.ts) as a child process, run as `node --import tsx`
 * so that the pid we SIGKILL is the server itself (the `tsx` CLI would put a parent in between,
 * and a SIGKILL to that parent would orphan the server).
 */
export class ServerProcess {
  private child: ChildProcess | null = null;
  private log: WriteStream;
  readonly url: string;
  starts = 0;

  constructor(private readonly env: ServerEnv) {
    this.url = `http://127.0.0.1:${env.port}`;
    this.log = createWriteStream(env.logFile, { flags: "a" });
  }

  async start(timeoutMs = 60_000): Promise<void> {
    this.starts += 1;
    const child = spawn(process.execPath, ["--import", "tsx", "functions/local/main.ts"], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(this.env.port),
        DYNAMO_PORT: String(this.env.dynamoPort),
        DATA_DIR: this.env.dataDir,
        LEDGER_TOKEN: this.env.token,
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.pipe(this.log, { end: false });
    child.stderr?.pipe(this.log, { end: false });
    this.child = child;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} while starting`);
      if (await this.healthy()) return;
      await sleep(100);
    }
    throw new Error(`server did not answer /health within ${timeoutMs} ms`);
  }

  async healthy(): Promise<boolean> {
    try {
      const answer = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1000) });
      return answer.status === 200;
    } catch {
      return false;
    }
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed; returns once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await exited;
    this.child = null;
  }

  async stop(): Promise<void> {
    await this.kill();
    await new Promise<void>((resolve) => this.log.end(() => resolve()));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
