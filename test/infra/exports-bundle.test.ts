import { rmSync } from "node:fs";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { seedArchive } from "../export/seed-archive.js";
import { startArchive } from "../support/archive.js";
import { loadExportBundles, type roleLoader, synthesizeBundles } from "../support/deployed-bundles.js";
import { invokeStreaming } from "../support/lambda-streaming.js";
import { saveEnv } from "../support/saved-env.js";
import { functionUrlEvent, httpApiEvent, REGION } from "./lambda-events.js";

/**
 * The exports in AWS, run from the very bundles `cdk deploy` would upload: the exports function
 * behind its function URL (RESPONSE_STREAM), under a stand-in for the Lambda runtime's
 * streaming globals (test/support/lambda-streaming.ts), over the tables of a local archive;
 * and the API function, which redirects the export routes there with the tree size pinned.
 */
type ApiHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const EXPORTS_URL = `https://a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.${REGION}.on.aws/`;

let outdir: string;
let archive: LocalServer;
let size: number;
let exportsHandler: unknown;
let api: ApiHandler;
let roles: ReturnType<typeof roleLoader>;
const restoreEnv = saveEnv();

beforeAll(async () => {
  const synthesized = synthesizeBundles("ledger-exports-bundle-");
  outdir = synthesized.outdir;

  archive = await startArchive();
  // 12 incidents of 25 events: 300 lines of NDJSON, so more than one chunk of 100.
  size = (await seedArchive(archive, { incidents: 12, eventsPerIncident: 25 })).size;
  expect(size).toBe(300);

  ({
    roles,
    exports: exportsHandler,
    data: api,
  } = await loadExportBundles<ApiHandler>(synthesized, archive, { exportsUrl: EXPORTS_URL, region: REGION }));
}, 180_000);

afterAll(async () => {
  restoreEnv();
  await roles?.close();
  delete (globalThis as { awslambda?: unknown }).awslambda;
  await archive?.close();
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const local = async (path: string) => Buffer.from(await (await fetch(`${archive.url}${path}`)).arrayBuffer());

describe("the exports in AWS", () => {
  for (const [file, type] of [
    ["events.ndjson", "application/x-ndjson; charset=utf-8"],
    ["incidents.csv", "text/csv; charset=utf-8; header=present"],
  ] as const) {
    it(`streams ${file} through the function URL: the local export's bytes, in more than one chunk`, async () => {
      const answer = await invokeStreaming(
        exportsHandler,
        functionUrlEvent({ method: "GET", path: `/export/${file}`, query: { treeSize: String(size) } }),
      );
      expect(answer.statusCode).toBe(200);
      expect(answer.headers["content-type"]).toBe(type);
      expect(answer.headers["x-tree-size"]).toBe(String(size));
      expect(answer.chunks.length).toBeGreaterThan(1);
      const expected = await local(`/export/${file}?treeSize=${size}`);
      expect(expected.length).toBeGreaterThan(1000);
      expect(answer.body.equals(expected)).toBe(true);
      // A smaller tree: a prefix of the log, still the local bytes.
      const earlier = await invokeStreaming(
        exportsHandler,
        functionUrlEvent({ method: "GET", path: `/export/${file}`, query: { treeSize: "120" } }),
      );
      expect(earlier.body.equals(await local(`/export/${file}?treeSize=120`))).toBe(true);
    });
  }

  it("answers a bad tree size from the function URL with the API's problem+json", async () => {
    const answer = await invokeStreaming(
      exportsHandler,
      functionUrlEvent({ method: "GET", path: "/export/incidents.csv", query: { treeSize: "lots" } }),
    );
    expect(answer.statusCode).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(answer.body.toString()).errors[0].path).toBe("query.treeSize");
    const elsewhere = await invokeStreaming(
      exportsHandler,
      functionUrlEvent({ method: "GET", path: "/incidents" }),
    );
    expect(elsewhere.statusCode).toBe(404);
  });

  it("has the data Lambda redirect the export routes to the function URL, the tree size pinned, and still refuse bad queries", async () => {
    for (const file of ["events.ndjson", "incidents.csv"]) {
      const answer = await api(
        httpApiEvent({
          method: "GET",
          route: "/export/{name}",
          path: `/export/${file}`,
        }) as APIGatewayProxyEventV2,
      );
      expect(answer.statusCode).toBe(307);
      expect(answer.headers?.location).toBe(`${EXPORTS_URL}export/${file}?treeSize=${size}`);
      expect(answer.headers?.["x-tree-size"]).toBe(String(size));
    }
    const bad = await api(
      httpApiEvent({
        method: "GET",
        route: "/export/{name}",
        path: "/export/events.ndjson",
        query: { treeSize: String(size + 1) },
      }) as APIGatewayProxyEventV2,
    );
    expect(bad.statusCode).toBe(400);
  });

  it("has the data Lambda serve the signed checkpoint and name a release for a writer's claims", async () => {
    const checkpoint = await api(
      httpApiEvent({
        method: "GET",
        route: "/log/{proxy+}",
        path: "/log/checkpoint",
      }) as APIGatewayProxyEventV2,
    );
    expect(checkpoint.statusCode).toBe(200);
    expect(checkpoint.body).toBe((await local("/log/checkpoint")).toString());
    const named = await api(
      httpApiEvent({
        method: "POST",
        route: "/releases",
        path: "/releases",
        body: { name: "exports-bundle-test" },
        claims: {
          sub: "bundle-writer",
          iss: "https://issuer.example",
          aud: "ledger",
          "cognito:groups": "[editor]",
        },
      }) as APIGatewayProxyEventV2,
    );
    expect(named.statusCode, named.body).toBe(201);
    expect(JSON.parse(named.body ?? "{}")).toMatchObject({ name: "exports-bundle-test", treeSize: size });
  });
});

describe("the roles these bundles run as", () => {
  it("were asked for no call IAM would refuse them (each bundle's store judges its calls as IAM would)", () => {
    expect(roles.names().length).toBeGreaterThan(0);
    expect(roles.denials()).toEqual([]);
  });
});
