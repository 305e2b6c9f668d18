/**
 * Structured logs: one JSON object a line, the shape Lambda's JSON log format and any log
 * search expect. Levels below LOG_LEVEL are dropped.
 */
export type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(
  level: Level = (process.env.LOG_LEVEL as Level | undefined) ?? "info",
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const min = ORDER[level] ?? ORDER.info;
  const emit =
    (lvl: Level) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < min) return;
      write(JSON.stringify({ time: new Date().toISOString(), level: lvl, message, ...fields }));
    };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
