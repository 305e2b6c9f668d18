import { DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { Hono } from "hono";
import { handle } from "hono/aws-lambda";

// The baseline bundle: the least an API Lambda over DynamoDB carries (Hono, the DynamoDB client,
// one route doing one GetItem), built with exactly the options the archive's Lambdas use.
const db = new DynamoDBClient({});
const app = new Hono();
app.get("/incidents/:incidentId", async (c) => {
  const out = await db.send(
    new GetItemCommand({
      TableName: process.env.VIEWS_TABLE ?? "views",
      Key: { incidentId: { S: c.req.param("incidentId") } },
    }),
  );
  return out.Item ? c.json(out.Item) : c.notFound();
});
export const handler = handle(app);
