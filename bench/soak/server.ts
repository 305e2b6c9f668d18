import { createWriteStream, type WriteStream } from "node:fs";
import { createServer } from "node:net";
import { type ChildServer, killHard, startChildServer } from "../../test/support/child-server.js";

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
 * `npm start` restarted on the same ports and DATA_DIR after each SIGKILL, its output appended
 * to one log file (test/support/child-server.ts starts it).
 */
export class ServerProcess {
  private child: ChildServer | null = null;
  private log: WriteStream;
  readonly url: string;
  starts = 0;

  constructor(private readonly env: ServerEnv) {
    this.url = `http://127.0.0.1:${env.port}`;
    this.log = createWriteStream(env.logFile, { flags: "a" });
  }

  async start(timeoutMs = 60_000): Promise<void> {
    this.starts += 1;
    this.child = await startChildServer(
      {
        PORT: String(this.env.port),
        DYNAMO_PORT: String(this.env.dynamoPort),
        DATA_DIR: this.env.dataDir,
        LEDGER_TOKEN: this.env.token,
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
      },
      { onOutput: (chunk) => this.log.write(chunk), timeoutMs },
    );
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed; returns once the process is gone. */
  async kill(): Promise<void> {
    if (this.child) await killHard(this.child);
    this.child = null;
  }

  async stop(): Promise<void> {
    await this.kill();
    await new Promise<void>((resolve) => this.log.end(() => resolve()));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
