import { readFileSync, rmSync, statSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { type AttributeValue, DynamoDBClient, GetItemCommand, QueryCommand } from "@aws-sdk/client-dynamodb";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
} from "aws-lambda";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sealEnvelope } from "../../events/sealing.js";
import { DisclosureStore } from "../../functions/people/disclosure-store.js";
import { createTables } from "../../functions/store/create-tables.js";
import { peopleTables, type TableNames } from "../../functions/store/table-design.js";
import { RELEASE_PATH, WRITE_PATH } from "../../infra/ledger-stack.js";
import { lambdaEnvironment, roleLoader, synthesizeBundles } from "../support/deployed-bundles.js";
import { saveEnv } from "../support/saved-env.js";
import {
  type HttpRequest,
  httpApiEvent,
  matchesFilter,
  REGION,
  streamEvent,
  streamInsert,
} from "./lambda-events.js";

/**
 * The Lambda bundles exactly as `cdk deploy` would upload them (the stack synthesized with
 * bundling on, by the stack's own esbuild options), run in this process against dynalite and
 * fed the events AWS would send: API Gateway HTTP API v2 requests, then the DynamoDB Streams
 * records the API's writes produce.
 */

type ApiHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>;
type StreamHandler = (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>;

const INCIDENT = "bundle-test-strike-2024-01-01";
const WRITER = {
  sub: "5f1c2a9e-6b1d-4c55-9a0e-2d1f0c3b4a5e",
  email: "writer@example.org",
  email_verified: "true",
  "cognito:username": "5f1c2a9e-6b1d-4c55-9a0e-2d1f0c3b4a5e",
  token_use: "id",
  // As API Gateway's JWT authorizer passes a list claim on: its flattened text form.
  "cognito:groups": "[writer editor]",
  iss: `https://cognito-idp.${REGION}.amazonaws.com/${REGION}_AbCdEfGhI`,
  aud: "3n4b5urk1ft4fl3mg5e62d9ado",
};

let outdir: string;
let server: Server;
let db: DynamoDBClient;
let tables: TableNames;
let bundles: { api: string; projector: string; viewRepair: string; pages: string; data: string };
let streamFilters: unknown[];
let api: ApiHandler;
let pages: ApiHandler;
let data: ApiHandler;
let projector: StreamHandler;
let coldImportMs: number;
/** Each bundle as its Lambda loads it, its store reached through its role's policies. */
let roles: ReturnType<typeof roleLoader>;
let viewRepair: { fn: { node: { defaultChild?: unknown } }; role: { node: { defaultChild?: unknown } } };
const restoreEnv = saveEnv();

beforeAll(async () => {
  // 1. Synthesize with bundling: the assets CDK stages are the deployable artifacts.
  const synthesized = synthesizeBundles("ledger-bundles-");
  outdir = synthesized.outdir;
  const { stack, assembly, assetFile } = synthesized;
  const template = assembly.getStackArtifact(stack.artifactId).template;
  bundles = {
    api: assetFile(stack.api.function),
    projector: assetFile(stack.projector.function),
    viewRepair: assetFile(stack.viewRepair.fn.function),
    pages: assetFile(stack.pages.function),
    data: assetFile(stack.data.function),
  };
  const mappingId = Object.keys(template.Resources).find(
    (key) => template.Resources[key].Type === "AWS::Lambda::EventSourceMapping",
  );
  streamFilters = template.Resources[mappingId ?? ""].Properties.FilterCriteria.Filters.map(
    (f: { Pattern: string }) => JSON.parse(f.Pattern),
  );

  // 2. The store: in-process dynalite with the three tables.
  server = dynalite({ createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  db = new DynamoDBClient({
    endpoint,
    region: REGION,
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
  });
  tables = {
    events: "ledger-events",
    claims: "ledger-claims",
    views: "ledger-views",
    log: "ledger-log",
    search: "ledger-search",
  };
  await createTables(db, tables);

  // 3. The Lambda environment, as the stack sets it, plus what the runtime provides. Each
  // bundle reaches the store through its own role's policies, as in AWS (its client is made as
  // it loads, from DYNAMODB_ENDPOINT).
  const environment = lambdaEnvironment(tables, { endpoint, region: REGION });
  Object.assign(process.env, environment);
  roles = roleLoader(synthesized, { endpoint, environment });

  const started = performance.now();
  api = await roles.load<ApiHandler>("api", stack.api.function, stack.api.role);
  coldImportMs = performance.now() - started;
  projector = await roles.load<StreamHandler>("projector", stack.projector.function, stack.projector.role);
  pages = await roles.load<ApiHandler>("pages", stack.pages.function, stack.pages.role);
  data = await roles.load<ApiHandler>("data", stack.data.function, stack.data.role);
  viewRepair = { fn: stack.viewRepair.fn.function, role: stack.viewRepair.fn.role };
});

afterAll(async () => {
  restoreEnv();
  await roles?.close();
  db?.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

async function call(request: HttpRequest, handler: ApiHandler = api) {
  const result = (await handler(
    httpApiEvent(request) as APIGatewayProxyEventV2,
  )) as APIGatewayProxyStructuredResultV2;
  const text = result.isBase64Encoded
    ? Buffer.from(result.body ?? "", "base64").toString()
    : (result.body ?? "");
  // biome-ignore lint/suspicious/noExplicitAny: answers are asserted on loosely.
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: result.statusCode, headers: result.headers ?? {}, body };
}

const post = (body: unknown) =>
  call({
    method: "POST",
    route: WRITE_PATH,
    path: `/incidents/${INCIDENT}/events`,
    body,
    claims: WRITER,
  });

/** The commit items the API stored, as the INSERT records the events table's stream emits. */
async function commitRecords() {
  const out = await db.send(
    new QueryCommand({
      TableName: tables.events,
      KeyConditionExpression: "incidentId = :id",
      ExpressionAttributeValues: { ":id": { S: INCIDENT } },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).map((item) =>
    streamInsert(
      tables.events,
      { incidentId: item.incidentId as AttributeValue, version: item.version as AttributeValue },
      item,
    ),
  );
}

describe("the bundled Lambdas, end to end", () => {
  it("reports the API bundle's size and cold import time", () => {
    const bytes = statSync(bundles.api).size;
    console.log(
      `API bundle: ${bytes} bytes (${(bytes / 1024).toFixed(0)} KiB), cold import ${coldImportMs.toFixed(0)} ms; ` +
        `projector bundle: ${statSync(bundles.projector).size} bytes`,
    );
    expect(bytes).toBeGreaterThan(0);
    expect(typeof api).toBe("function");
    expect(typeof projector).toBe("function");
  });

  it("answers /health and the problem+json 404 for unknown paths from the API bundle", async () => {
    const health = await call({ method: "GET", route: "/health", path: "/health" });
    expect(health).toMatchObject({ status: 200, body: { ok: true } });
    const unknown = await call({ method: "GET", route: "/{proxy+}", path: "/no/such/route" });
    expect(unknown.status).toBe(404);
    expect(unknown.headers["content-type"]).toBe("application/problem+json");
  });

  it("serves the OpenAPI document built at bundle time from the data bundle; the API bundle carries no page, log, document or S3 code", async () => {
    const { openApiDocument } = await import("../../functions/http/openapi.js");
    const openapi = await call({ method: "GET", route: "/openapi.json", path: "/openapi.json" }, data);
    expect(openapi.status).toBe(200);
    expect(openapi.body).toEqual(openApiDocument());
    for (const bundle of [bundles.api, bundles.data]) {
      // The document builder's own words and the pages' markup are in neither bundle.
      const text = readFileSync(bundle, "utf8");
      expect(text).not.toContain("toJSONSchema");
      expect(text).not.toContain("Every page here is built from the same data");
    }
    const api = readFileSync(bundles.api, "utf8");
    // Neither the log's routes, nor the KMS client, nor the document's text.
    expect(api).not.toContain("/log/checkpoint");
    expect(api).not.toContain("GetPublicKey");
    expect(api).not.toContain("An evidence-grade, event-sourced archive of reports");
    expect(readFileSync(bundles.data, "utf8")).toContain("/log/checkpoint");
    // The S3 hand-off (exports bucket, builder invokes) is the data Lambda's alone; the API's S3
    // client is the evidence bucket's (uploads, and the append's check that captured bytes are held).
    expect(api).not.toContain("EXPORTS_BUCKET");
    expect(api).not.toContain("X-Amz-Invocation-Type");
    expect(api).toContain("EVIDENCE_BUCKET");
    const dataText = readFileSync(bundles.data, "utf8");
    expect(dataText).toContain("HeadObject");
    expect(dataText).toContain("X-Amz-Invocation-Type");
  });

  it("serves the log, the feed and releases from the data bundle, POST /releases with a writer's claims", async () => {
    const checkpoint = await call({ method: "GET", route: "/log/{proxy+}", path: "/log/checkpoint" }, data);
    // Nothing sequenced in this store: the data Lambda's problem+json, not a 5xx.
    expect(checkpoint.status).toBe(404);
    expect(checkpoint.headers["content-type"]).toBe("application/problem+json");
    const feed = await call({ method: "GET", route: "/feed", path: "/feed" }, data);
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    const releases = await call({ method: "GET", route: "/releases", path: "/releases" }, data);
    expect(releases.status, JSON.stringify(releases.body)).toBe(200);
    const release: HttpRequest = {
      method: "POST",
      route: RELEASE_PATH,
      path: "/releases",
      body: { name: "bundle-test" },
    };
    expect((await call(release, data)).status).toBe(401);
    // With the authorizer's claims the writer is known: it is refused only for the empty log.
    const named = await call({ ...release, claims: WRITER }, data);
    expect(named.status, JSON.stringify(named.body)).toBe(409);
    expect(named.body.type).toMatch(/no-checkpoint/);
  });

  it("serves the dashboard, /docs and /codebook from the pages bundle", async () => {
    const list = await call({ method: "GET", route: "/", path: "/" }, pages);
    expect(list.status).toBe(200);
    expect(list.headers["content-type"]).toMatch(/^text\/html/);
    const docs = await call({ method: "GET", route: "/docs", path: "/docs" }, pages);
    expect(docs.status).toBe(200);
    expect(docs.body).toContain("/incidents/{incidentId}/events");
    // The codebook travels inside the bundle (no file beside it in a Lambda), rendered there.
    const codebook = await call({ method: "GET", route: "/codebook", path: "/codebook" }, pages);
    expect(codebook.status).toBe(200);
    expect(codebook.body).toContain('<h3 id="grades">Grades</h3>');
    const missing = await call(
      { method: "GET", route: "/view/{incidentId}", path: "/view/no-such-incident-here" },
      pages,
    );
    expect(missing.status).toBe(404);
  });

  it("appends through API Gateway events, projects from stream records, and serves the summary", async () => {
    const opened = await post({
      eventId: "bundle-test-opened-0001",
      type: "IncidentOpened",
      source: { publisher: "Bundle Test Wire" },
      data: {
        title: "Strike on a railway station",
        kind: "missile-strike",
        location: { name: "Central station", country: "UA" },
        occurredOn: "2024-01-01",
      },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    expect(opened.body).toMatchObject({ incidentId: INCIDENT, version: 1 });

    // No eventId: the server makes one (and the projector registers it as a claim).
    const casualties = await post({
      type: "CasualtiesReported",
      source: { publisher: "Bundle Test Wire" },
      attributedTo: { name: "Regional governor", side: "Ukraine" },
      data: { figures: { killed: { value: 50, qualifier: "at-least" } } },
    });
    expect(casualties.status, JSON.stringify(casualties.body)).toBe(201);
    expect(casualties.body).toMatchObject({ version: 2 });

    const anonymous = await call({
      method: "POST",
      route: WRITE_PATH,
      path: `/incidents/${INCIDENT}/events`,
      body: { type: "StatementMade" },
    });
    expect(anonymous.status).toBe(401);

    // Nothing projected yet: the listing (served from the views index alone) is empty.
    expect((await call({ method: "GET", route: "/incidents", path: "/incidents" })).body.items).toEqual([]);

    const records = await commitRecords();
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      // The stack's filter must let every commit through, or AWS would never invoke the projector.
      expect(streamFilters.some((pattern) => matchesFilter(pattern, record))).toBe(true);
    }
    const projected = await projector(streamEvent(records));
    expect(projected).toEqual({ batchItemFailures: [] });

    const view = await db.send(
      new GetItemCommand({
        TableName: tables.views,
        Key: { incidentId: { S: INCIDENT } },
        ConsistentRead: true,
      }),
    );
    expect(view.Item?.version).toEqual({ N: "2" });

    const summary = await call({
      method: "GET",
      route: "/incidents/{incidentId}",
      path: `/incidents/${INCIDENT}`,
    });
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ incidentId: INCIDENT, version: 2, kind: "missile-strike" });
    expect(summary.body.casualties.killed).toMatchObject({ low: 50, high: null, reports: 1 });
    expect(summary.headers.etag ?? summary.headers.ETag).toBe('"2"');

    const listing = await call({
      method: "GET",
      route: "/incidents",
      path: "/incidents",
      query: { limit: "5" },
    });
    expect(listing.status).toBe(200);
    expect(listing.body.items.map((item: { incidentId: string }) => item.incidentId)).toEqual([INCIDENT]);

    // At-least-once delivery: the same records again change nothing.
    expect(await projector(streamEvent(records))).toEqual({ batchItemFailures: [] });
    const again = await call({
      method: "GET",
      route: "/incidents/{incidentId}",
      path: `/incidents/${INCIDENT}`,
    });
    expect(again.body).toEqual(summary.body);
  });

  it("reports a poisoned record in batchItemFailures instead of failing the batch", async () => {
    const [good] = await commitRecords();
    const poisoned = streamInsert(tables.events, {}, { itemType: { S: "commit" }, version: { N: "1" } });
    const result = await projector(streamEvent(good ? [good, poisoned] : [poisoned]));
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: poisoned.dynamodb?.SequenceNumber }]);
  });

  it("the view-repair bundle re-projects an incident whose stream records were all dropped", async () => {
    const id = "bundle-test-dropped";
    const opened = await call({
      method: "POST",
      route: WRITE_PATH,
      path: `/incidents/${id}/events`,
      claims: WRITER,
      body: {
        type: "IncidentOpened",
        source: { publisher: "Bundle Test Wire" },
        data: {
          title: "Shelling of a market",
          kind: "shelling",
          location: { name: "Market", country: "UA" },
        },
      },
    });
    expect(opened.status).toBe(201);
    // No record of it ever reaches the projector; the scheduled sweep finds the missing view.
    const handler = await roles.load<() => Promise<{ built: number; caughtUp: number; failed: number }>>(
      "view-repair",
      viewRepair.fn,
      viewRepair.role,
    );
    // …and then the disclosures an append wrote long ago before it failed (functions/people/orphan-sweep.ts).
    const { disclosures: orphan } = sealEnvelope(
      {
        eventId: "bundle-orphan-list",
        type: "VictimsRecorded",
        source: { publisher: "Bundle Test Wire" },
        data: { victims: [{ name: "Never stored" }] },
      },
      () => "YnVuZGxlLW9ycGhhbi1zYWx0",
    );
    await new DisclosureStore(db, peopleTables(tables).disclosures).putFresh(
      id,
      "bundle-orphan-list",
      orphan,
      "2026-01-01T00:00:00.000Z",
    );
    expect(await handler()).toMatchObject({ built: 1, caughtUp: 0, failed: 0, orphans: { removed: 1 } });
    const view = await db.send(
      new GetItemCommand({ TableName: tables.views, Key: { incidentId: { S: id } }, ConsistentRead: true }),
    );
    expect(view.Item?.version).toEqual({ N: "1" });
    expect(await handler()).toMatchObject({ built: 0, caughtUp: 0, orphans: { items: 0, removed: 0 } });
  });

  it("appends a batch of events with client ids, and a retry of it, then projects it", async () => {
    const batch = {
      events: ["a", "b"].map((n) => ({
        eventId: `bundle-test-batch-${n}`,
        type: "StatementMade",
        source: { publisher: "Bundle Test Wire" },
        attributedTo: { name: "Regional governor" },
        data: { quote: `A statement (${n})`, stance: "condemns" },
      })),
    };
    const first = await post(batch);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const retry = await post(batch);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toEqual(first.body);
    // The editors' judgements, which the projector also indexes (functions/editorial).
    const judged = await post({
      events: [
        {
          type: "AttributionAssessed",
          source: { publisher: "incident-ledger" },
          attributedTo: { name: "editors" },
          data: { perpetrator: { name: "Unit A" }, certainty: "medium" },
        },
        {
          type: "IncidentsLinked",
          source: { publisher: "incident-ledger" },
          attributedTo: { name: "editors" },
          data: { otherIncidentId: "bundle-test-dropped", relation: "related" },
        },
      ],
    });
    expect(judged.status, JSON.stringify(judged.body)).toBe(201);
    expect(await projector(streamEvent(await commitRecords()))).toEqual({ batchItemFailures: [] });
    const links = await call({
      method: "GET",
      route: "/incidents/{incidentId}/links",
      path: "/incidents/bundle-test-dropped/links",
    });
    expect(links.body.items).toMatchObject([{ incidentId: INCIDENT, direction: "incoming" }]);
  });

  it("finds a quote, then takes its words back when a later projection folds its retraction", async () => {
    const said = await post({
      eventId: "bundle-test-zebra",
      type: "StatementMade",
      source: { publisher: "Bundle Test Wire" },
      attributedTo: { name: "Regional governor" },
      data: { quote: "A zebra crossing was hit.", stance: "condemns" },
    });
    expect(said.status, JSON.stringify(said.body)).toBe(201);
    expect(await projector(streamEvent(await commitRecords()))).toEqual({ batchItemFailures: [] });
    const search = () =>
      call({ method: "GET", route: "/incidents", path: "/incidents", query: { q: "zebra" } });
    expect((await search()).body.items.map((s: { incidentId: string }) => s.incidentId)).toEqual([INCIDENT]);
    const retracted = await post({
      type: "ReportRetracted",
      source: { publisher: "Bundle Test Wire" },
      attributedTo: { name: "Regional governor" },
      data: { targetEventId: "bundle-test-zebra", reason: "misattributed" },
    });
    expect(retracted.status, JSON.stringify(retracted.body)).toBe(201);
    // This projection folds the retraction alone: the index reads the retracted statement back.
    expect(await projector(streamEvent(await commitRecords()))).toEqual({ batchItemFailures: [] });
    expect((await search()).body.items).toEqual([]);
  });

  it("takes back the sealed values of a refused append (a stale If-Match), which its role may not delete", async () => {
    const refused = await call({
      method: "POST",
      route: WRITE_PATH,
      path: `/incidents/${INCIDENT}/events`,
      claims: WRITER,
      headers: { "if-match": '"1"' },
      body: {
        type: "VictimsRecorded",
        source: { publisher: "Bundle Test Wire" },
        attributedTo: { name: "Registry" },
        data: { victims: [{ name: "Not to be kept" }] },
      },
    });
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: peopleTables(tables).disclosures,
        KeyConditionExpression: "incidentId = :i",
        ExpressionAttributeValues: { ":i": { S: INCIDENT } },
      }),
    );
    // Its one pack, rewritten empty: the writers' role may update a pack, not delete it.
    expect(Items.map((item) => item.entries?.S)).toEqual(["[]"]);
  });

  it("made no call a role of the stack may not make (each bundle's store judges its calls as IAM would)", () => {
    expect(roles.names()).toEqual(["api", "projector", "pages", "data", "view-repair"]);
    expect(roles.denials()).toEqual([]);
  });
});
