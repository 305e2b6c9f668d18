import { rmSync } from "node:fs";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { AP, opened, post, startArchive } from "../support/archive.js";
import { loadExportBundles, type roleLoader, synthesizeBundles } from "../support/deployed-bundles.js";
import { invokeStreaming } from "../support/lambda-streaming.js";
import { saveEnv } from "../support/saved-env.js";
import { functionUrlEvent, httpApiEvent, REGION } from "./lambda-events.js";

/**
 * GET /export/disclosures.ndjson in AWS, from the bundles `cdk deploy` would upload: the data
 * Lambda (behind API Gateway's buffered 6 MB) redirects it to the exports function, which streams
 * it through its function URL as it streams the other exports, over a local archive's tables.
 */
type ApiHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const EXPORTS_URL = `https://a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.${REGION}.on.aws/`;
const VICTIMS = 400;

let outdir: string;
let archive: LocalServer;
let exportsHandler: unknown;
let api: ApiHandler;
let roles: ReturnType<typeof roleLoader>;
const restoreEnv = saveEnv();

beforeAll(async () => {
  const synthesized = synthesizeBundles("ledger-disclosures-bundle-");
  outdir = synthesized.outdir;

  archive = await startArchive();
  expect((await post(archive.url, "bundle-people", opened())).status).toBe(201);
  // Two lists, each name public: 800 lines, over 100 KB.
  for (const list of ["a", "b"]) {
    const victims = Array.from({ length: VICTIMS }, (_, i) => ({ name: `Person ${list}${i}`, age: i % 90 }));
    const disclose = Object.fromEntries(victims.map((_, i) => [`/data/victims/${i}/name`, "public"]));
    const answer = await post(archive.url, "bundle-people", {
      eventId: `bundle-list-${list}`,
      type: "VictimsRecorded",
      source: AP,
      attributedTo: { name: "Registry" },
      data: { victims, disclose },
    });
    expect(answer.status).toBe(201);
  }
  await archive.stream.projected("bundle-people");
  await archive.sequencing.idle();

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

describe("the disclosures export in AWS", () => {
  it("has the data Lambda redirect it to the exports function, the query kept, and still refuse a bad one", async () => {
    const plain = await api(
      httpApiEvent({
        method: "GET",
        route: "/export/{name}",
        path: "/export/disclosures.ndjson",
      }) as APIGatewayProxyEventV2,
    );
    expect(plain.statusCode).toBe(307);
    expect(plain.headers?.location).toBe(`${EXPORTS_URL}export/disclosures.ndjson`);
    const cut = await api(
      httpApiEvent({
        method: "GET",
        route: "/export/{name}",
        path: "/export/disclosures.ndjson",
        query: { treeSize: "2" },
      }) as APIGatewayProxyEventV2,
    );
    expect(cut.statusCode).toBe(307);
    expect(cut.headers?.location).toBe(`${EXPORTS_URL}export/disclosures.ndjson?treeSize=2`);
    expect(cut.headers?.["x-tree-size"]).toBe("2");
    const bad = await api(
      httpApiEvent({
        method: "GET",
        route: "/export/{name}",
        path: "/export/disclosures.ndjson",
        query: { treeSize: "lots" },
      }) as APIGatewayProxyEventV2,
    );
    expect(bad.statusCode).toBe(400);
  });

  it("streams it through the function URL: the local export's bytes", async () => {
    const answer = await invokeStreaming(
      exportsHandler,
      functionUrlEvent({ method: "GET", path: "/export/disclosures.ndjson" }),
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    const expected = await local("/export/disclosures.ndjson");
    expect(expected.toString().trim().split("\n")).toHaveLength(2 * VICTIMS);
    expect(answer.body.equals(expected)).toBe(true);
    // At a tree size that holds the first list only: its disclosures alone, as locally.
    const cut = await invokeStreaming(
      exportsHandler,
      functionUrlEvent({ method: "GET", path: "/export/disclosures.ndjson", query: { treeSize: "2" } }),
    );
    expect(cut.statusCode).toBe(200);
    const first = await local("/export/disclosures.ndjson?treeSize=2");
    expect(first.toString().trim().split("\n")).toHaveLength(VICTIMS);
    expect(cut.body.equals(first)).toBe(true);
  });
});

describe("the roles these bundles run as", () => {
  it("were asked for no call IAM would refuse them (each bundle's store judges its calls as IAM would)", () => {
    expect(roles.names().length).toBeGreaterThan(0);
    expect(roles.denials()).toEqual([]);
  });
});
