import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ChildProcessServer {
  url: string;
  process: ChildProcess;
  pid: number;
  /** Everything the process printed so far (stdout and stderr), for error messages. */
  output: () => string;
  /** SIGTERM (a clean stop), SIGKILL if it has not exited 5 s later; resolves once it is gone. */
  stop(): Promise<void>;
}

export interface ChildServer extends ChildProcessServer {
  /** dynalite's DynamoDB endpoint, as the banner prints it (for `npm run rebuild` and raw reads). */
  dynamoEndpoint: string;
}

export interface StartOptions {
  /** Each chunk of output as it comes (e.g. to a log file); it is also kept for `output()`. */
  onOutput?: (chunk: Buffer) => void;
  timeoutMs?: number;
}

/**
 * Runs `node --import tsx <args>` from the repository's root and waits until `ready` matches
 * its output; the match's first group is the URL. Run as `node --import tsx` rather than the
 * `tsx` CLI so that the pid signalled is the server itself, not a parent that would orphan it.
 */
export function startNodeProcess(
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  options: StartOptions = {},
): Promise<ChildProcessServer & { match: RegExpExecArray }> {
  return startProcess(process.execPath, ["--import", "tsx", ...args], env, ready, options);
}

/** `npm start` itself, as a user or a process manager runs it: the pid is npm's. */
export async function startWithNpm(
  env: Record<string, string | undefined>,
  options: StartOptions = {},
): Promise<ChildServer> {
  const server = await startProcess(
    "npm",
    ["start", "--silent"],
    { PORT: "0", DYNAMO_PORT: "0", LOG_LEVEL: "info", ...env },
    BANNER,
    options,
  );
  return { ...server, dynamoEndpoint: server.match[2] as string };
}

/** What the banner says once `npm start` serves: the API's URL, then the store's. */
const BANNER = /API\s+(http:\/\/\S+)[\s\S]*DynamoDB\s+(http:\/\/\S+)/;

function startProcess(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  options: StartOptions,
): Promise<ChildProcessServer & { match: RegExpExecArray }> {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(" ")} did not start:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      options.onOutput?.(chunk);
      output += chunk;
      const match = ready.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.off("exit", onEarlyExit);
        resolve({
          url: match[1],
          match,
          process: child,
          pid: child.pid as number,
          output: () => output,
          stop: () => stop(child),
        });
      }
    };
    const onEarlyExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(" ")} exited with ${code}:\n${output}`));
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onEarlyExit);
  });
}

/**
 * `npm start` (functions/local/main.ts) as a separate process on free ports unless `env` sets
 * PORT / DYNAMO_PORT, so a test can kill -9 it and a benchmark can load it from outside. Ready
 * once it prints its banner, which it does only after the catch-up at start.
 */
export async function startChildServer(
  env: Record<string, string | undefined>,
  options: StartOptions = {},
): Promise<ChildServer> {
  const server = await startNodeProcess(
    ["functions/local/main.ts"],
    { PORT: "0", DYNAMO_PORT: "0", LOG_LEVEL: "info", ...env },
    BANNER,
    options,
  );
  return { ...server, dynamoEndpoint: server.match[2] as string };
}

/**
 * kill -9, then waits until its children are gone too (npm start's store process stops when
 * its parent's channel closes): a restart on the same DATA_DIR then finds LevelDB unlocked.
 */
export async function killHard(server: ChildProcessServer): Promise<void> {
  const child = server.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const children = childPids(server.pid);
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
  await waitUntilGone(children);
}

/** The pids a process started (Linux's /proc), empty once it is gone. */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

export async function waitUntilGone(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const pid of pids) {
    while (existsSync(`/proc/${pid}`) && !isZombie(pid)) {
      if (Date.now() > deadline) throw new Error(`process ${pid} outlived its parent`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}
