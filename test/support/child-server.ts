import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ChildServer {
  url: string;
  process: ChildProcess;
  output: () => string;
}

/** `npm start` as a separate process (free ports), so a test can kill -9 it. */
export function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const child = spawn(process.execPath, ["--import", "tsx", "functions/local/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: "0", DYNAMO_PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const started = /"message":"started","url":"([^"]+)"/.exec(output);
      if (started?.[1]) {
        clearTimeout(timer);
        resolve({ url: started[1], process: child, output: () => output });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

export function killHard(server: ChildServer): Promise<void> {
  return new Promise((resolve) => {
    server.process.once("exit", () => resolve());
    server.process.kill("SIGKILL");
  });
}
