import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltExport } from "../../functions/export/export-upload.js";
import type { LocalServer } from "../../functions/local/server.js";
import { seedArchive } from "../export/seed-archive.js";
import { startArchive } from "../support/archive.js";
import { roleLoader, synthesizeBundles } from "../support/deployed-bundles.js";
import { type LambdaInvokeEndpoint, startLambdaInvokeEndpoint } from "../support/lambda-invoke-endpoint.js";
import { saveEnv } from "../support/saved-env.js";
import { httpApiEvent, REGION } from "./lambda-events.js";

/**
 * The S3 hand-off, run from the bundles `cdk deploy` would upload: the builder function (an
 * export of one tree size into the exports bucket, a multipart upload) and the data Lambda
 * (307 to a presigned GET of the built object, else to the streaming function's URL; POST
 * /releases starting the builds), against a real S3 API on loopback (s3rver: multipart uploads,
 * presigned GETs and Range; it checks the access key but not SigV4 signatures, so the
 * signature itself is AWS's to check), the SDK's real Lambda client calling a stand-in
 * of the Invoke API (test/support/lambda-invoke-endpoint.ts), over a local archive's tables.
 */
type HttpHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;
type BuildHandler = (event: unknown) => Promise<BuiltExport>;

const EXPORTS_URL = `https://a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.${REGION}.on.aws/`;
const BUCKET = "ledger-exports";
const BUILDER = "IncidentLedger-ExportBuilder";
const FILES = {
  "events.ndjson": "application/x-ndjson; charset=utf-8",
  "incidents.csv": "text/csv; charset=utf-8; header=present",
  "ucdp-ged.csv": "text/csv; charset=utf-8; header=present",
  "acled.csv": "text/csv; charset=utf-8; header=present",
} as const;
type File = keyof typeof FILES;

let outdir: string;
let s3dir: string;
let archive: LocalServer;
let s3server: S3rver;
let s3: S3Client;
let lambdaEndpoint: LambdaInvokeEndpoint;
let size: number;
let builder: BuildHandler;
let data: HttpHandler;
let roles: ReturnType<typeof roleLoader>;
const restoreEnv = saveEnv();

beforeAll(async () => {
  const synthesized = synthesizeBundles("ledger-hand-off-bundle-");
  outdir = synthesized.outdir;
  const { stack } = synthesized;

  archive = await startArchive();
  // ≈ 17 KB statements: the NDJSON (≈ 7 MB) needs two 5 MB parts; 40 incidents for the CSV.
  size = (await seedArchive(archive, { incidents: 40, eventsPerIncident: 25, quoteLength: 17_000 })).size;
  expect(size).toBe(1000);

  s3dir = mkdtempSync(join(tmpdir(), "ledger-s3rver-"));
  s3server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: s3dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await s3server.run();
  const s3Endpoint = `http://127.0.0.1:${port}`;
  // s3rver's one account: every request's access key, presigned GETs included, must be its.
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  s3 = new S3Client({ endpoint: s3Endpoint, forcePathStyle: true, region: REGION, credentials });

  Object.assign(process.env, {
    EVENTS_TABLE: archive.tables.events,
    CLAIMS_TABLE: archive.tables.claims,
    VIEWS_TABLE: archive.tables.views,
    LOG_TABLE: archive.tables.log,
    LOG_LEVEL: "warn",
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    DYNAMODB_ENDPOINT: archive.dynamoEndpoint,
    S3_ENDPOINT: s3Endpoint,
    EXPORTS_URL,
    EXPORTS_BUCKET: BUCKET,
    EXPORT_BUILDER: BUILDER,
  });
  roles = roleLoader(synthesized, {
    endpoint: archive.dynamoEndpoint,
    environment: process.env as Record<string, string>,
  });
  builder = await roles.load<BuildHandler>(
    "export-builder",
    stack.exportHandOff.builder.function,
    stack.exportHandOff.builder.role,
  );
  lambdaEndpoint = await startLambdaInvokeEndpoint({ [BUILDER]: (event) => builder(event) });
  process.env.LAMBDA_ENDPOINT = lambdaEndpoint.url;
  data = await roles.load<HttpHandler>("data", stack.data.function, stack.data.role);
}, 180_000);

afterAll(async () => {
  restoreEnv();
  await roles?.close();
  s3?.destroy();
  await s3server?.close();
  await lambdaEndpoint?.close();
  await archive?.close();
  for (const dir of [outdir, s3dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

const local = async (path: string) => {
  const response = await fetch(`${archive.url}${path}`);
  return { body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
};

const download = (file: File, query?: Record<string, string>) =>
  data(
    httpApiEvent({
      method: "GET",
      route: "/export/{name}",
      path: `/export/${file}`,
      ...(query ? { query } : {}),
    }) as APIGatewayProxyEventV2,
  );

async function storedObject(key: string) {
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return {
    body: Buffer.from(
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    ),
    type: object.ContentType,
    disposition: object.ContentDisposition,
  };
}

const exists = (key: string) =>
  s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })).then(
    () => true,
    (error: { name?: string }) => {
      if (error.name === "NotFound") return false;
      throw error;
    },
  );

describe("the S3 hand-off, from the bundles", () => {
  it("redirects to the streaming function while no export is built", async () => {
    for (const file of Object.keys(FILES) as File[]) {
      const answer = await download(file);
      expect(answer.statusCode).toBe(307);
      expect(answer.headers?.location).toBe(`${EXPORTS_URL}export/${file}?treeSize=${size}`);
      expect(answer.headers?.["x-tree-size"]).toBe(String(size));
    }
  });

  it("starts both builds from POST /releases through Lambda's Invoke API; the builder stores the local export's bytes", async () => {
    expect(await exists(`exports/${size}/events.ndjson`)).toBe(false);
    const named = await data(
      httpApiEvent({
        method: "POST",
        route: "/releases",
        path: "/releases",
        body: { name: "hand-off-1" },
        claims: {
          sub: "bundle-writer",
          iss: "https://issuer.example",
          aud: "ledger",
          "cognito:groups": "[editor]",
        },
      }) as APIGatewayProxyEventV2,
    );
    expect(named.statusCode, named.body).toBe(201);
    expect(lambdaEndpoint.invocations.map((i) => [i.functionName, i.invocationType, i.payload])).toEqual(
      expect.arrayContaining([
        [BUILDER, "Event", { treeSize: size, name: "events.ndjson" }],
        [BUILDER, "Event", { treeSize: size, name: "incidents.csv" }],
        [BUILDER, "Event", { treeSize: size, name: "ucdp-ged.csv" }],
        [BUILDER, "Event", { treeSize: size, name: "acled.csv" }],
      ]),
    );
    expect(lambdaEndpoint.invocations).toHaveLength(4);
    const runs = await Promise.all(lambdaEndpoint.invocations.map((i) => i.run));
    for (const run of runs) expect(run.error).toBeUndefined();
    const built = Object.fromEntries(
      runs.map((run) => [(run.result as BuiltExport).key, run.result as BuiltExport]),
    );
    // The big NDJSON went up in parts (a multipart upload); the small CSV in one PutObject.
    expect(built[`exports/${size}/events.ndjson`]?.parts).toBeGreaterThan(1);
    expect(built[`exports/${size}/incidents.csv`]?.parts).toBe(1);

    for (const [file, type] of Object.entries(FILES)) {
      const expected = await local(`/export/${file}?treeSize=${size}`);
      const stored = await storedObject(`exports/${size}/${file}`);
      expect(stored.body.length).toBe(built[`exports/${size}/${file}`]?.bytes);
      expect(stored.body.equals(expected.body)).toBe(true);
      expect(stored.type).toBe(type);
      expect(stored.disposition).toBe(expected.headers.get("content-disposition"));
    }
    expect((await local(`/export/events.ndjson?treeSize=${size}`)).body.length).toBeGreaterThan(
      6 * 1024 * 1024,
    );
  });

  it("then redirects to a presigned GET that serves those bytes, and a Range of them", async () => {
    for (const file of Object.keys(FILES) as File[]) {
      const answer = await download(file, { treeSize: String(size) });
      expect(answer.statusCode).toBe(307);
      expect(answer.headers?.["x-tree-size"]).toBe(String(size));
      const location = new URL(String(answer.headers?.location));
      expect(location.origin).toBe(process.env.S3_ENDPOINT);
      expect(location.pathname).toBe(`/${BUCKET}/exports/${size}/${file}`);
      expect(location.searchParams.get("X-Amz-Expires")).toBe("3600");
      const expected = (await local(`/export/${file}?treeSize=${size}`)).body;
      const whole = await fetch(location);
      expect(whole.status).toBe(200);
      expect(whole.headers.get("content-type")).toBe(FILES[file]);
      expect(Buffer.from(await whole.arrayBuffer()).equals(expected)).toBe(true);
      // The second quarter: what `curl -C -` or a download manager asks for.
      const [from, to] = [Math.floor(expected.length / 4), Math.floor(expected.length / 2) - 1];
      const slice = await fetch(location, { headers: { Range: `bytes=${from}-${to}` } });
      expect(slice.status).toBe(206);
      expect(slice.headers.get("content-range")).toBe(`bytes ${from}-${to}/${expected.length}`);
      expect(Buffer.from(await slice.arrayBuffer()).equals(expected.subarray(from, to + 1))).toBe(true);
      // Signed by the data Lambda's credentials (s3rver checks the key, not a SigV4 signature).
      expect(location.searchParams.get("X-Amz-Credential")).toMatch(/^S3RVER\//);
      expect(location.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    }
    // Another tree size has no object yet: it still streams from the function URL.
    const earlier = await download("incidents.csv", { treeSize: "120" });
    expect(earlier.headers?.location).toBe(`${EXPORTS_URL}export/incidents.csv?treeSize=120`);
    // Bad queries are refused before any look-up, as before.
    expect((await download("events.ndjson", { treeSize: String(size + 1) })).statusCode).toBe(400);
    expect((await download("events.ndjson", { treeSize: "lots" })).statusCode).toBe(400);
  });

  it("builds a smaller tree size's exports (the local bytes there too) and refuses a tree the log has not signed", async () => {
    for (const file of Object.keys(FILES) as File[]) {
      const built = await builder({ treeSize: 120, name: file });
      expect(built).toMatchObject({ key: `exports/120/${file}`, parts: 1 });
      const stored = await storedObject(built.key);
      expect(stored.body.equals((await local(`/export/${file}?treeSize=120`)).body)).toBe(true);
    }
    const beyond = await download("incidents.csv", { treeSize: "120" });
    expect(new URL(String(beyond.headers?.location)).pathname).toBe(`/${BUCKET}/exports/120/incidents.csv`);

    await expect(builder({ treeSize: size + 1, name: "events.ndjson" })).rejects.toThrow(/signed trees/);
    expect(await exists(`exports/${size + 1}/events.ndjson`)).toBe(false);
    await expect(builder({ treeSize: 5, name: "events.json" })).rejects.toThrow(/not a build request/);
  });

  it("stores the release even when the builds cannot be started", async () => {
    const before = lambdaEndpoint.invocations.length;
    // Every attempt refused: four builds, each tried again by the SDK (3 attempts by default).
    lambdaEndpoint.failNext(100);
    const named = await data(
      httpApiEvent({
        method: "POST",
        route: "/releases",
        path: "/releases",
        body: { name: "hand-off-2" },
        claims: {
          sub: "bundle-writer",
          iss: "https://issuer.example",
          aud: "ledger",
          "cognito:groups": "[editor]",
        },
      }) as APIGatewayProxyEventV2,
    );
    lambdaEndpoint.failNext(0);
    expect(named.statusCode, named.body).toBe(201);
    expect(lambdaEndpoint.invocations).toHaveLength(before);
    const listed = await data(
      httpApiEvent({
        method: "GET",
        route: "/releases/{name}",
        path: "/releases/hand-off-2",
      }) as APIGatewayProxyEventV2,
    );
    expect(listed.statusCode).toBe(200);
  });
});

describe("the roles these bundles run as", () => {
  it("were asked for no call IAM would refuse them (each bundle's store judges its calls as IAM would)", () => {
    expect(roles.names().length).toBeGreaterThan(0);
    expect(roles.denials()).toEqual([]);
  });
});
