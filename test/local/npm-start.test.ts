import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it, vi } from "vitest";
import { STOP_GRACE_MS } from "../../functions/local/server.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { call, casualties, opened, post, startArchive, TOKEN } from "../support/archive.js";
import {
  childPids,
  killHard,
  startChildServer,
  startWithNpm,
  waitUntilGone,
} from "../support/child-server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "ledger-npm-start-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `npm start`'s entry run to its exit (free ports, a DATA_DIR of its own unless `env` gives one). */
async function runMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", "functions/local/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: "0", DYNAMO_PORT: "0", DATA_DIR: tempDir(), LEDGER_TOKEN: TOKEN, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, output, stderr };
}

describe("npm start: the archive in one process", () => {
  it("reads wait for the projection of every write before them", async () => {
    const archive = await startArchive();
    try {
      const id = "npm-start-ryw";
      expect((await post(archive.url, id, opened())).status).toBe(201);
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          post(archive.url, id, casualties({ killed: { value: k, qualifier: "exact" } })),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(201));
      const summary = await call(archive.url, "GET", `/incidents/${id}`);
      expect(summary.body.version).toBe(13);
    } finally {
      await archive.close();
    }
  });

  it("npm start exits non-zero, with the cause, when its store cannot start", async () => {
    const dataDir = tempDir();
    // LevelDB takes a lock on its directory: a second archive on it cannot open the store.
    const first = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    try {
      const { code, output } = await runMain({ DATA_DIR: dataDir });
      expect(code).not.toBe(0);
      expect(output).not.toContain("incident-ledger is running");
      // dynalite reports the held lock as a closed database.
      expect(output).toMatch(/Database is closed|lock/i);
    } finally {
      await first.stop();
    }
  });

  it("npm start refuses, in one line and before it starts, a port in use and a LEDGER_USERS it cannot use", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const inUse = await runMain({ PORT: String(port) });
      expect(inUse.code).toBe(1);
      expect(inUse.stderr.trim().split("\n").at(-1)).toBe(
        `PORT ${port} is in use by another program: give another PORT (0 for a free one)`,
      );
    } finally {
      taken.close();
    }
    const dir = tempDir();
    const shared = join(dir, "users");
    writeFileSync(shared, `${JSON.stringify({ name: "alice", token: TOKEN, roles: ["writer"] })}\n`);
    const sharing = await runMain({ LEDGER_USERS: shared });
    expect(sharing.code).toBe(2);
    expect(sharing.stderr).toBe(
      `LEDGER_USERS ${shared}: the user "alice" is given LEDGER_TOKEN, the token that holds every role: give them a token of their own\n`,
    );
    const missing = await runMain({ LEDGER_USERS: join(dir, "no-such-file") });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`LEDGER_USERS ${join(dir, "no-such-file")}: cannot be read (ENOENT)\n`);
  });

  it("its banner's hint sends the sample to this server's URL, not the scripts' default", async () => {
    const server = await startChildServer({ DATA_DIR: tempDir(), LEDGER_TOKEN: TOKEN });
    try {
      // The hint follows the URL in the same write: wait for the banner's end.
      await vi.waitFor(() => expect(server.output()).toContain("npm run sample"));
      expect(server.output()).toContain(
        `LEDGER_URL=${server.url} LEDGER_TOKEN="$LEDGER_TOKEN" npm run sample`,
      );
    } finally {
      await server.stop();
    }
  });

  it("on SIGTERM npm start stops cleanly, and what it stored is there at the next start", async () => {
    const dataDir = tempDir();
    const first = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    expect((await post(first.url, "npm-start-restart", opened())).status).toBe(201);
    first.process.kill("SIGTERM");
    const code = await new Promise((resolve) => first.process.once("exit", resolve));
    expect(code).toBe(0);
    expect(first.output()).toContain('"message":"stopped"');
    const second = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    try {
      const summary = await call(second.url, "GET", "/incidents/npm-start-restart");
      expect(summary.body.version).toBe(1);
    } finally {
      await second.stop();
    }
  });

  it("on SIGTERM with a slow upload in flight, it stops: at once on a second signal, else after its grace", async () => {
    /** An upload that sends its headers and a first piece, then nothing more, until the socket closes. */
    const slowUpload = (url: string) => {
      const { hostname, port } = new URL(url);
      const socket = connect(Number(port), hostname);
      socket.on("error", () => {});
      socket.write(
        `POST /evidence HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n${"x".repeat(1000)}`,
      );
      return new Promise<void>((resolve) => socket.once("close", () => resolve()));
    };
    const exitOf = (server: Awaited<ReturnType<typeof startChildServer>>) =>
      new Promise<number | null>((resolve) => server.process.once("exit", (code) => resolve(code)));

    const twice = await startChildServer({ DATA_DIR: tempDir(), LEDGER_TOKEN: TOKEN });
    const cut = slowUpload(twice.url);
    await new Promise((r) => setTimeout(r, 300));
    const exited = exitOf(twice);
    const started = Date.now();
    twice.process.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    expect(twice.process.exitCode).toBeNull();
    twice.process.kill("SIGINT");
    expect(await exited).toBe(0);
    await cut;
    expect(Date.now() - started).toBeLessThan(STOP_GRACE_MS);
    expect(twice.output()).toContain('"message":"stopping now: requests in flight are cut off"');

    const once = await startChildServer({ DATA_DIR: tempDir(), LEDGER_TOKEN: TOKEN });
    const waited = slowUpload(once.url);
    await new Promise((r) => setTimeout(r, 300));
    const gone = exitOf(once);
    once.process.kill("SIGTERM");
    expect(await gone).toBe(0);
    await waited;
    expect(once.output()).toContain('"message":"stopping: requests still in flight are cut off"');
  }, 60_000);

  for (const signal of ["SIGTERM", "SIGINT"] as const)
    it(`on ${signal} to npm itself, the server stops cleanly with it rather than outliving it`, async () => {
      const server = await startWithNpm({ DATA_DIR: tempDir(), LEDGER_TOKEN: TOKEN });
      // Every process under npm, so that a server left running by a failure is stopped here.
      const tree = (pid: number): number[] => childPids(pid).flatMap((child) => [child, ...tree(child)]);
      const under = tree(server.pid);
      try {
        expect((await fetch(`${server.url}/health`)).status).toBe(200);
        const exited = new Promise((resolve) => server.process.once("exit", (code) => resolve(code)));
        server.process.kill(signal);
        expect(await exited).toBe(0);
        expect(server.output()).toContain('"message":"stopped"');
        await expect(fetch(`${server.url}/health`)).rejects.toThrow();
      } finally {
        for (const pid of under)
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Gone already, as it should be.
          }
      }
    });

  it("stops, saying why, when its store process dies under it; a restart serves what was stored", async () => {
    const dataDir = tempDir();
    const first = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    expect((await post(first.url, "npm-start-lost-store", opened())).status).toBe(201);
    const [store] = childPids(first.pid).filter((pid) => commandLine(pid).includes("store-main"));
    const exited = new Promise<number | null>((resolve) => first.process.once("exit", resolve));
    process.kill(store as number, "SIGKILL");
    expect(await exited).toBe(1);
    expect(first.output()).toContain("stopping: the store is gone");
    const second = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    try {
      expect((await call(second.url, "GET", "/incidents/npm-start-lost-store")).body.version).toBe(1);
    } finally {
      await killHard(second);
    }
  });

  it("runs its store in a process of its own, which stops with it even when it is killed", async () => {
    const dataDir = tempDir();
    const first = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    const stores = childPids(first.pid).filter((pid) => commandLine(pid).includes("store-main"));
    expect(stores).toHaveLength(1);
    expect((await post(first.url, "npm-start-store", opened())).status).toBe(201);
    // The store answers on the endpoint the banner names, from the other process.
    const db = createDynamoClient(first.dynamoEndpoint);
    expect((await db.send(new ListTablesCommand({}))).TableNames).toContain("incident-ledger-events");
    db.destroy();
    await new Promise<void>((resolve) => {
      first.process.once("exit", () => resolve());
      first.process.kill("SIGKILL");
    });
    await waitUntilGone(stores);
    const second = await startChildServer({ DATA_DIR: dataDir, LEDGER_TOKEN: TOKEN });
    try {
      expect((await call(second.url, "GET", "/incidents/npm-start-store")).body.version).toBe(1);
    } finally {
      await killHard(second);
    }
  });
});

const commandLine = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
};
