import { CreateTableCommand, DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startDynalite } from "../lib/dynamo.js";

/**
 * What SigV4 signing costs a store call on loopback: the archive's client (createDynamoClient,
 * which skips signing for a loopback dynalite) against the SDK's default signer, the same puts
 * alternating, client and in-memory dynalite in this process (so CPU is both sides').
 *   tsx bench/profile/sdk-signing.ts [calls per round]
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
const n = Number(process.argv[2] ?? 2000);
const dynamo = await startDynalite();
const clients = {
  signed: new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  }),
  archive: createDynamoClient(dynamo.endpoint),
};
const TABLE = "sdk-signing";
await clients.signed.send(
  new CreateTableCommand({
    TableName: TABLE,
    KeySchema: [{ AttributeName: "k", KeyType: "HASH" }],
    AttributeDefinitions: [{ AttributeName: "k", AttributeType: "S" }],
    BillingMode: "PAY_PER_REQUEST",
  }),
);
const body = "x".repeat(2000);
const cpu: Record<string, number[]> = { signed: [], archive: [] };
for (let round = 0; round < 4; round++) {
  for (const side of ["signed", "archive"] as const) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++)
      await clients[side].send(
        new PutItemCommand({ TableName: TABLE, Item: { k: { S: `${side}-${round}-${i}` }, b: { S: body } } }),
      );
    const used = process.cpuUsage(before);
    cpu[side]?.push((used.user + used.system) / n);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const [signed, archive] = [median(cpu.signed ?? []), median(cpu.archive ?? [])];
console.log(
  `CPU a PutItem (2 KB), client + dynalite: SDK signer ${signed.toFixed(0)} µs, loopback signer ${archive.toFixed(0)} µs = ${(archive / signed).toFixed(2)}×`,
);
for (const client of Object.values(clients)) client.destroy();
await dynamo.close();
