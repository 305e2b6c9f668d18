import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerToken } from "../../functions/http/auth.js";
import { createLedger } from "../../functions/ledger.js";
import { silentLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { tableNamesFromEnv } from "../../functions/store/table-design.js";

/**
 * GET /health over a store that takes the connection and never answers (as a hung or paused
 * DynamoDB endpoint does): the health check must say so, not hang with it.
 */

let silent: Server;
const sockets: Socket[] = [];
let endpoint: string;
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe("GET /health", () => {
  it("answers 503 when the store takes the request and never answers", async () => {
    const ledger = createLedger({
      db: createDynamoClient(endpoint),
      tables: tableNamesFromEnv({}),
      log: silentLogger,
    });
    const app = ledger.app(bearerToken("health-token-0123456789", "w"), { openApi: {}, groups: ["api"] });
    const started = Date.now();
    const answer = await app.request("/health");
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      ok: false,
      detail: "the store does not answer: no answer within 3 s",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sockets.length).toBeGreaterThan(0);
  });
});
