import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseUsersFile } from "../http/auth.js";
import { parseWitnesses } from "../log/witness-client.js";
import { createLogger } from "../logger.js";
import { tableDefinitions } from "../store/create-tables.js";
import { type LocalServer, STOP_GRACE_MS, startLocalServer } from "./server.js";
import { startStoreProcess } from "./store-process.js";

// `npm start`: the archive on one machine. Configuration is by environment, as in the README.
const env = process.env;
// Node 20 is supported on purpose (the machines this runs on); the SDK's notice that its 2027
// releases will want Node 22 is not news to someone starting a local archive.
env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
const log = createLogger();
const port = Number(env.PORT ?? 3000);
const dynamoPort = Number(env.DYNAMO_PORT ?? 8000);
const dataDir = resolve(env.DATA_DIR ?? "./.data");
const host = env.HOST ?? "127.0.0.1";

// What the environment gives that can be wrong is read before anything starts.
const users = env.LEDGER_USERS ? usersFrom(env.LEDGER_USERS, env.LEDGER_TOKEN) : undefined;
const evidenceMax = env.LEDGER_EVIDENCE_MAX
  ? byteCount("LEDGER_EVIDENCE_MAX", env.LEDGER_EVIDENCE_MAX)
  : undefined;

let server: LocalServer;
try {
  server = await startLocalServer({
    port,
    store: await startStoreProcess({
      host,
      port: dynamoPort,
      dataDir,
      // What was acknowledged is in LevelDB already: stop, say why, and a restart serves it again.
      onLost: (why) => {
        log.error("stopping: the store is gone", { why });
        process.exit(1);
      },
    }),
    dataDir,
    host,
    log,
    ...(env.LEDGER_TOKEN ? { token: env.LEDGER_TOKEN } : {}),
    ...(env.LEDGER_WRITER ? { writer: env.LEDGER_WRITER } : {}),
    // Named users with their own roles: a file of one JSON object a line (CONTRACT.md "Roles").
    ...(users ? { users } : {}),
    ...(env.LEDGER_LOG_ORIGIN ? { logOrigin: env.LEDGER_LOG_ORIGIN } : {}),
    ...(env.LEDGER_PUBLIC_URL ? { publicUrl: env.LEDGER_PUBLIC_URL } : {}),
    ...(env.LEDGER_LOG_KEY ? { logKey: env.LEDGER_LOG_KEY } : {}),
    ...(env.LEDGER_SESSION_KEY ? { sessionKey: env.LEDGER_SESSION_KEY } : {}),
    witnesses: parseWitnesses(env.LEDGER_WITNESSES),
    // RFC 3161 tokens over checkpoints (CONTRACT.md "Trusted time").
    ...(env.LEDGER_TSA_URL ? { tsa: { url: env.LEDGER_TSA_URL } } : {}),
    ...(evidenceMax !== undefined ? { evidenceMax } : {}),
  });
} catch (error) {
  fail(startFailure(error));
}

const tokenLine = env.LEDGER_TOKEN
  ? "write token  LEDGER_TOKEN from your environment"
  : `write token  ${server.token}   (made for this run; set LEDGER_TOKEN to choose one)`;
// Every table this run uses, three a line.
const tableNames = tableDefinitions(server.tables).map((table) => table.TableName);
const tableLines: string[] = [];
for (let i = 0; i < tableNames.length; i += 3) tableLines.push(tableNames.slice(i, i + 3).join("  "));
process.stderr.write(
  [
    "",
    "  incident-ledger is running",
    `  API          ${server.url}`,
    `  dashboard    ${server.url}/`,
    `  API docs     ${server.url}/docs   (OpenAPI: ${server.url}/openapi.json)`,
    `  desk         ${server.url}/sign-in   (sign in with the write token)`,
    `  ${tokenLine}`,
    `  DynamoDB     ${server.dynamoEndpoint}   (dynalite; data in ${dataDir})`,
    `  log vkey     ${server.logSigner.vkey}`,
    `               (checkpoint: ${server.url}/log/checkpoint; key ${env.LEDGER_LOG_KEY ? "from LEDGER_LOG_KEY" : `kept in ${dataDir}`})`,
    `  tables       ${tableLines.join("\n               ")}`,
    "",
    `  try: curl ${server.url}/incidents`,
    // The scripts go to http://localhost:3000 unless told: the hint names this server's URL,
    // and a token that works pasted as it is (a made one is printed above already).
    `       LEDGER_URL=${server.url} LEDGER_TOKEN=${env.LEDGER_TOKEN ? '"$LEDGER_TOKEN"' : server.token} npm run sample`,
    "",
  ].join("\n"),
);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    // A second signal does not wait for requests in flight: they are cut off, and the stop goes on.
    if (stopping) {
      log.info("stopping now: requests in flight are cut off", { signal });
      server.cutOff();
      return;
    }
    stopping = true;
    log.info("stopping", { signal, graceMs: STOP_GRACE_MS });
    await server.close();
    log.info("stopped");
    process.exit(0);
  });
}

/**
 * The users of LEDGER_USERS, or npm start stops saying what is wrong with the file (never a
 * token): unreadable, a bad line, or a user given LEDGER_TOKEN, which holds every role and must
 * stay no one user's.
 */
function usersFrom(path: string, allRoles: string | undefined): ReturnType<typeof parseUsersFile> {
  let users: ReturnType<typeof parseUsersFile>;
  try {
    users = parseUsersFile(readFileSync(path, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code ? `cannot be read (${code})` : (error as Error).message;
    return stop(`LEDGER_USERS ${path}: ${why}`);
  }
  const shared = users.find((user) => user.token === allRoles);
  if (shared)
    return stop(
      `LEDGER_USERS ${path}: the user ${JSON.stringify(shared.name)} is given LEDGER_TOKEN, the token that holds every role: give them a token of their own`,
    );
  return users;
}

/**
 * Why the archive could not start, in one line naming what to change: a port in use, a DATA_DIR
 * that is not a directory or cannot be written; else the error's own message.
 */
function startFailure(error: unknown): string {
  const message = (error as Error).message ?? String(error);
  const code = (error as NodeJS.ErrnoException).code;
  if (/EADDRINUSE/.test(message) || code === "EADDRINUSE")
    return /local store/.test(message)
      ? `DYNAMO_PORT ${dynamoPort} is in use by another program: give another DYNAMO_PORT (0 for a free one)`
      : `PORT ${port} is in use by another program: give another PORT (0 for a free one)`;
  if (code === "EEXIST" || code === "ENOTDIR") return `DATA_DIR ${dataDir} is not a directory`;
  if (code === "EACCES" || code === "EROFS" || code === "EPERM")
    return `DATA_DIR ${dataDir} cannot be written (${code}): give a directory this user may write`;
  return `npm start could not start: ${message}`;
}

/** npm start gives up, saying why in one line (exit 1). */
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

/** npm start stops before it starts anything, saying why in one line (exit 2, as for a usage error). */
function stop(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** A size in bytes from the environment: a positive whole number, or npm start stops saying which variable is wrong. */
function byteCount(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    stop(`${name} must be a positive whole number of bytes, not ${JSON.stringify(text)}`);
  return value;
}
