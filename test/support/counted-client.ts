import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";

/**
 * A real DynamoDB client on the test's dynalite whose every call is noted by command name, so
 * a test can say how many store calls (and of which kinds) an operation made.
 */
export function countedClient(endpoint: string): { db: DynamoDBClient; calls: string[] } {
  const db = createDynamoClient(endpoint);
  const calls: string[] = [];
  const send = db.send.bind(db);
  db.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
    calls.push(command.constructor.name);
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof db.send;
  return { db, calls };
}
