import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExportBucketLinks } from "../../functions/export/export-links.js";
import { createLedger } from "../../functions/ledger.js";
import type { LocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { startArchive } from "../support/archive.js";
import { seedArchive } from "./seed-archive.js";

/**
 * The export routes when the exports bucket cannot answer (S3 down, throttled, a wrong
 * endpoint): the download is not refused, it streams from the exports function as before the
 * hand-off, and the failure is logged. The S3 client is real; its endpoint is a closed port.
 */
const EXPORTS_URL = "https://exports.example/";
let archive: LocalServer;
let closedPort: number;
let size: number;
const lines: string[] = [];

beforeAll(async () => {
  archive = await startArchive();
  size = (await seedArchive(archive, { incidents: 2, eventsPerIncident: 3 })).size;
  // A port that was just free: nothing listens there, so every S3 call is refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await archive?.close();
});

describe("built exports, when the bucket cannot be reached", () => {
  it("still redirects to the streaming function, and logs why", async () => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    const s3 = new S3Client({
      endpoint: `http://127.0.0.1:${closedPort}`,
      forcePathStyle: true,
      region: "eu-central-1",
      credentials: { accessKeyId: "x", secretAccessKey: "x" },
      maxAttempts: 1,
    });
    try {
      const ledger = createLedger({
        db,
        tables: archive.tables,
        log: createLogger("warn", (line) => lines.push(line)),
        exportsUrl: EXPORTS_URL,
        storedExports: new ExportBucketLinks(s3, "ledger-exports"),
      });
      const app = ledger.app(() => null, { openApi: {}, groups: ["data"] });
      const answer = await app.request(`/export/incidents.csv?treeSize=${size}`);
      expect(answer.status).toBe(307);
      expect(answer.headers.get("location")).toBe(`${EXPORTS_URL}export/incidents.csv?treeSize=${size}`);
      expect(answer.headers.get("x-tree-size")).toBe(String(size));
      const warned = lines.map((line) => JSON.parse(line)).find((l) => /built export/.test(l.message));
      expect(warned).toMatchObject({ level: "warn", treeSize: size, name: "incidents.csv" });
      // A bad query is still refused first, with no look-up at all.
      expect((await app.request(`/export/incidents.csv?treeSize=${size + 1}`)).status).toBe(400);
    } finally {
      s3.destroy();
      db.destroy();
    }
  });
});
