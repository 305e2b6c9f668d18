import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";

/**
 * A real DynamoDB client on the test's dynalite whose every call is noted by command name, so
 * a test can say how many store calls (and of which kinds) an operation made; `sent` adds the
 * table, in the order the calls were sent.
 */
export function countedClient(endpoint: string): {
  db: DynamoDBClient;
  calls: string[];
  sent: { command: string; table: string | undefined }[];
} {
  const db = createDynamoClient(endpoint);
  const calls: string[] = [];
  const sent: { command: string; table: string | undefined }[] = [];
  const send = db.send.bind(db);
  db.send = ((
    command: { constructor: { name: string }; input?: { TableName?: string } },
    ...rest: unknown[]
  ) => {
    calls.push(command.constructor.name);
    sent.push({ command: command.constructor.name, table: command.input?.TableName });
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof db.send;
  return { db, calls, sent };
}
