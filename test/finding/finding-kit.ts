import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type DynamoDBClient, QueryCommand } from "@aws-sdk/client-dynamodb";
import type { LocalServer } from "../../functions/local/server.js";
import { call } from "../support/archive.js";

const SAMPLE = fileURLToPath(new URL("../../sample/kramatorsk-article.ndjson", import.meta.url));

/** Posts the sample incidents (as `npm run sample` does) and waits for their projections. */
export async function loadSample(archive: LocalServer): Promise<void> {
  const rows = readFileSync(SAMPLE, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { incidentId: string; event: unknown });
  for (const { incidentId, event } of rows) {
    const answer = await call(archive.url, "POST", `/incidents/${incidentId}/events`, event);
    if (answer.status !== 201 && answer.status !== 200) throw new Error(`sample: ${answer.status}`);
  }
  await archive.stream.idle();
}

export function opened(_id: string, title: string, extra: Record<string, unknown> = {}) {
  return {
    type: "IncidentOpened",
    source: { publisher: "Test Wire" },
    data: { title, kind: "shelling", location: { name: "Somewhere", country: "UA" }, ...extra },
  };
}

/** The incidents one list of the finding index holds (`t#<word>`, `s#<source>`), as stored. */
export async function listed(db: DynamoDBClient, table: string, pk: string): Promise<string[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: "pk = :p",
      ExpressionAttributeValues: { ":p": { S: pk } },
    }),
  );
  return (out.Items ?? []).map((item) => item.id?.S ?? "");
}
