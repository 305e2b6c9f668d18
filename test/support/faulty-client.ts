import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";

/** What happens to one DynamoDB call: it runs, the process "crashes" before or after it, or it is sent twice. */
export type Fault = "none" | "crash-before" | "crash-after" | "twice";

export class InjectedCrashError extends Error {
  constructor(
    readonly command: string,
    readonly when: "before" | "after",
  ) {
    super(`injected crash ${when} ${command}`);
    this.name = "InjectedCrashError";
  }
}

export interface CallInfo {
  /** The command's class name, e.g. PutItemCommand. */
  command: string;
  /** Its TableName. */
  table: string;
  /** The n-th call of this client (0-based). */
  index: number;
}

/**
 * A real DynamoDB client (against dynalite) whose `send` is wrapped, so a test can crash a
 * writer right before or right after any call reaches the store, or deliver a call twice (as
 * the SDK does when it retries a request whose answer was lost). Nothing is mocked: every call
 * that "happens" reaches the real store.
 */
export function faultyClient(endpoint: string, decide: (call: CallInfo) => Fault): DynamoDBClient {
  const db = createDynamoClient(endpoint);
  const send = db.send.bind(db) as (command: unknown) => Promise<unknown>;
  let index = 0;
  const wrapped = async (command: {
    constructor: { name: string };
    input: { TableName?: string; RequestItems?: Record<string, unknown> };
  }) => {
    const table = command.input.TableName ?? Object.keys(command.input.RequestItems ?? {})[0] ?? "";
    const call = { command: command.constructor.name, table, index: index++ };
    const fault = decide(call);
    if (fault === "crash-before") throw new InjectedCrashError(call.command, "before");
    if (fault === "twice") {
      // The first delivery lands; its answer is lost; the second delivery's answer is returned.
      await send(command).catch(() => undefined);
      return send(command);
    }
    const out = await send(command);
    if (fault === "crash-after") throw new InjectedCrashError(call.command, "after");
    return out;
  };
  (db as unknown as { send: typeof wrapped }).send = wrapped;
  return db;
}
