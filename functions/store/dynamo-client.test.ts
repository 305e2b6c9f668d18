import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { createDynamoClient } from "./dynamo-client.js";

/** The Authorization header a client sends to an endpoint (a loopback server that answers 400). */
async function authorizationSentTo(host: string, endpointHost = host): Promise<string> {
  let seen = "";
  const server = createServer((req, res) => {
    seen = req.headers.authorization ?? "";
    res.writeHead(400, { "content-type": "application/x-amz-json-1.0" });
    res.end(JSON.stringify({ __type: "com.amazon.coral.validate#ValidationException", message: "test" }));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const client = createDynamoClient(`http://${endpointHost}:${port}`);
  await client.send(new ListTablesCommand({})).catch(() => undefined);
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return seen;
}

describe("the DynamoDB client", () => {
  it("given a loopback endpoint (dynalite), then requests carry a well-formed SigV4 header without computing a signature", async () => {
    const header = await authorizationSentTo("127.0.0.1");
    expect(header).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/local\/dynamodb\/aws4_request, /);
    expect(header).toContain("Signature=unsigned-on-loopback");
  });

  it("given any other endpoint, then requests are signed as the SDK signs", async () => {
    // The same machine, named so that it is not one of the loopback names the client knows.
    const header = await authorizationSentTo("::", "[::ffff:127.0.0.1]");
    expect(header).toMatch(/^AWS4-HMAC-SHA256 Credential=local\/.*, Signature=[0-9a-f]{64}$/);
  });
});
