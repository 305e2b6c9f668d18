import { rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";
import { serve } from "@hono/node-server";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  APIGatewayProxyStructuredResultV2,
} from "aws-lambda";
import dynalite from "dynalite";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTables } from "../../functions/store/create-tables.js";
import { startTestIssuer } from "../desk/test-issuer.js";
import { lambdaEnvironment, roleLoader, synthesizeBundles } from "../support/deployed-bundles.js";
import { saveEnv } from "../support/saved-env.js";
import { type HttpRequest, httpApiEvent, REGION } from "./lambda-events.js";

/**
 * The desk as AWS runs it: the pages bundle `cdk deploy` would upload, fed API Gateway HTTP API
 * events (cookies in `event.cookies`, as API Gateway passes them), its session key read from a
 * stand-in Secrets Manager, signing a person in through a local OIDC issuer and opening an
 * incident with the desk's form, recorded under the ID token's user.
 */

type Handler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyResultV2>;
const CLIENT_ID = "desk-bundle-client";
const SECRET_ARN = `arn:aws:secretsmanager:${REGION}:123456789012:secret:desk-session-AbCdEf`;
const ORIGIN = "https://a1b2c3d4e5.execute-api.eu-central-1.amazonaws.com";

let outdir: string;
let pages: Handler;
let store: Server;
let secrets: ReturnType<typeof serve>;
let issuer: Awaited<ReturnType<typeof startTestIssuer>>;
let db: DynamoDBClient;
let secretReads = 0;
let roles: ReturnType<typeof roleLoader>;
const restoreEnv = saveEnv();

beforeAll(async () => {
  const synthesized = synthesizeBundles("ledger-desk-bundle-");
  outdir = synthesized.outdir;

  store = dynalite({ createTableMs: 0 });
  await new Promise<void>((resolve) => store.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(store.address() as AddressInfo).port}`;
  db = new DynamoDBClient({
    endpoint,
    region: REGION,
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
  });
  const tables = { events: "desk-events", claims: "desk-claims", views: "desk-views", log: "desk-log" };
  await createTables(db, tables);

  const app = new Hono();
  app.post("/", (c) => {
    secretReads += 1;
    return c.json({ ARN: SECRET_ARN, SecretString: "s".repeat(64) });
  });
  secrets = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => secrets.once("listening", () => resolve()));
  issuer = await startTestIssuer(CLIENT_ID);

  const environment = lambdaEnvironment(tables, { endpoint, region: REGION });
  Object.assign(process.env, {
    ...environment,
    DESK_OIDC_ISSUER: issuer.issuer,
    DESK_OIDC_CLIENT_ID: CLIENT_ID,
    DESK_SESSION_SECRET_ARN: SECRET_ARN,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secrets.address() as AddressInfo).port}`,
  });
  roles = roleLoader(synthesized, { endpoint, environment });
  const { stack } = synthesized;
  pages = await roles.load<Handler>("pages", stack.pages.function, stack.pages.role);
}, 240_000);

afterAll(async () => {
  restoreEnv();
  await roles?.close();
  db?.destroy();
  await issuer?.close();
  await new Promise<void>((resolve) => (secrets ? secrets.close(() => resolve()) : resolve()));
  await new Promise<void>((resolve) => (store ? store.close(() => resolve()) : resolve()));
  if (outdir) rmSync(outdir, { recursive: true, force: true });
});

const jar = new Map<string, string>();
async function call(request: HttpRequest & { form?: Record<string, string> }) {
  const event = httpApiEvent(request) as APIGatewayProxyEventV2;
  if (jar.size) event.cookies = [...jar].map(([k, v]) => `${k}=${v}`);
  if (request.form) {
    event.body = new URLSearchParams(request.form).toString();
    event.headers["content-type"] = "application/x-www-form-urlencoded";
    event.headers["content-length"] = String(Buffer.byteLength(event.body));
    event.headers.origin = ORIGIN;
  }
  const result = (await pages(event)) as APIGatewayProxyStructuredResultV2;
  for (const line of result.cookies ?? []) {
    const [pair = ""] = line.split(";");
    const [name = "", value = ""] = pair.split("=");
    if (value === "" || /max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
  const text = result.isBase64Encoded
    ? Buffer.from(result.body ?? "", "base64").toString()
    : (result.body ?? "");
  return { status: result.statusCode, headers: result.headers ?? {}, cookies: result.cookies ?? [], text };
}

describe("the desk in the deployed pages bundle", () => {
  it("signs a writer in through the issuer and opens an incident recorded under their name", async () => {
    const start = await call({
      method: "GET",
      route: "/sign-in",
      path: "/sign-in",
      query: { next: "/desk/new" },
    });
    expect(start.status).toBe(302);
    const authorize = new URL(String(start.headers.location));
    expect(authorize.origin + authorize.pathname).toBe(`${issuer.issuer}/authorize`);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/sign-in/callback`);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");

    const back = new URL(String((await fetch(authorize, { redirect: "manual" })).headers.get("location")));
    const signedIn = await call({
      method: "GET",
      route: "/sign-in/callback",
      path: "/sign-in/callback",
      query: Object.fromEntries(back.searchParams),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.location).toBe("/desk/new");
    const session = signedIn.cookies.find((c) => c.startsWith("ledger_session="));
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/Secure/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(secretReads).toBe(1);

    const form = await call({ method: "GET", route: "/desk/new", path: "/desk/new" });
    expect(form.status).toBe(200);
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form.text)?.[1] ?? "";
    const opened = await call({
      method: "POST",
      route: "/desk/new",
      path: "/desk/new",
      form: {
        formToken: field("formToken"),
        eventId: field("eventId"),
        incidentId: "desk-bundle-incident",
        "data.title": "Opened from the deployed desk",
        "data.kind": "shelling",
        "data.location.name": "A town",
        "data.location.country": "UA",
        "source.publisher": "Reuters",
      },
    });
    expect(opened.status, opened.text.slice(0, 400)).toBe(303);
    expect(opened.headers.location).toBe(
      `/view/desk-bundle-incident?recorded=${field("eventId")}#ev-${field("eventId")}`,
    );
    const page = await call({
      method: "GET",
      route: "/view/{incidentId}",
      path: "/view/desk-bundle-incident",
      query: { recorded: field("eventId") },
    });
    expect(page.text).toContain("Opened from the deployed desk");
    expect(page.text).toContain(`data-recorded="${field("eventId")}"`);
    expect(page.text).toContain("alice@example.org (alice-sub)");
  });

  it("shows a signed-in restricted-reader the restricted victims' values, audited; sign-out revokes the cookie", async () => {
    jar.clear();
    issuer.state.user = {
      sub: "rhea-sub",
      email: "rhea@example.org",
      groups: ["writer", "restricted-reader"],
    };
    await signInAsIssuerUser();
    const form = await call({
      method: "GET",
      route: "/desk/incidents/{incidentId}/{form}",
      path: "/desk/incidents/desk-bundle-incident/victims",
    });
    expect(form.status).toBe(200);
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form.text)?.[1] ?? "";
    const recorded = await call({
      method: "POST",
      route: "/desk/incidents/{incidentId}/{form}",
      path: "/desk/incidents/desk-bundle-incident/victims",
      form: {
        formToken: field("formToken"),
        eventId: field("eventId"),
        rows: "1",
        "victims[0].name": "Bundle Sealed-Name",
        "victims[0].sex": "female",
        "attributedTo.name": "Regional police",
        "source.publisher": "Reuters",
      },
    });
    expect(recorded.status, recorded.text.slice(0, 400)).toBe(303);
    const signedIn = await call({
      method: "GET",
      route: "/view/{incidentId}",
      path: "/view/desk-bundle-incident",
    });
    expect(signedIn.text).toContain("Bundle Sealed-Name");
    expect(signedIn.headers["cache-control"]).toBe("private, no-store");
    const audit = await db.send(new ScanCommand({ TableName: "desk-events-audit" }));
    expect((audit.Items ?? []).some((i) => i.who?.S === "rhea@example.org (rhea-sub)")).toBe(true);
    // The desk's proof bundle, read as the pages role may: the event is found, and the log (no
    // sequencer fills it here) answers that it is not in a signed checkpoint yet.
    const bundle = await call({
      method: "GET",
      route: "/desk/bundle/{incidentId}/{eventId}",
      path: `/desk/bundle/desk-bundle-incident/${field("eventId")}`,
    });
    expect(bundle.status, bundle.text.slice(0, 400)).toBe(202);
    expect([bundle.headers["content-type"], bundle.headers["retry-after"]]).toEqual([
      expect.stringMatching(/^text\/html/),
      "1",
    ]);
    expect(bundle.text).toContain("Not in the log yet");

    const copied = jar.get("ledger_session") ?? "";
    const out = await call({
      method: "POST",
      route: "/sign-out",
      path: "/sign-out",
      form: { formToken: field("formToken") },
    });
    expect(out.status).toBe(200);
    expect(jar.has("ledger_session")).toBe(false);
    jar.set("ledger_session", copied);
    const replayed = await call({
      method: "GET",
      route: "/view/{incidentId}",
      path: "/view/desk-bundle-incident",
    });
    expect(replayed.text).not.toContain("Bundle Sealed-Name");
    expect(replayed.text).toContain("sign in</a> to add reports");
    const desk = await call({ method: "GET", route: "/desk/new", path: "/desk/new" });
    expect(desk.status).toBe(303);
    jar.clear();
    const anonymous = await call({
      method: "GET",
      route: "/view/{incidentId}",
      path: "/view/desk-bundle-incident",
    });
    expect(anonymous.text).not.toContain("Bundle Sealed-Name");
    expect(anonymous.headers["cache-control"]).toBe("no-cache");
  });

  it("offers an editor the release form, sent through the release store as POST /releases is, and serves the upload script", async () => {
    jar.clear();
    issuer.state.user = { sub: "eve-sub", email: "eve@example.org", groups: ["writer", "editor"] };
    await signInAsIssuerUser();
    const release = await call({ method: "GET", route: "/desk/release", path: "/desk/release" });
    expect(release.status).toBe(200);
    const token = /name="formToken" value="([^"]+)"/.exec(release.text)?.[1] ?? "";
    // This log has no signed checkpoint yet: the release store answers as POST /releases does.
    const named = await call({
      method: "POST",
      route: "/desk/release",
      path: "/desk/release",
      form: { formToken: token, name: "bundle-release", note: "" },
    });
    expect(named.status).toBe(409);
    expect(named.text).toContain("no signed checkpoint");
    const script = await call({ method: "GET", route: "/desk/upload.js", path: "/desk/upload.js" });
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toMatch(/^text\/javascript/);
  });
});

/** The code flow through the test issuer as its current user, ending in a session cookie in the jar. */
async function signInAsIssuerUser(): Promise<void> {
  const start = await call({ method: "GET", route: "/sign-in", path: "/sign-in", query: { next: "/desk" } });
  const back = new URL(
    String(
      (await fetch(new URL(String(start.headers.location)), { redirect: "manual" })).headers.get("location"),
    ),
  );
  const done = await call({
    method: "GET",
    route: "/sign-in/callback",
    path: "/sign-in/callback",
    query: Object.fromEntries(back.searchParams),
  });
  expect(done.status).toBe(303);
  expect(jar.has("ledger_session")).toBe(true);
}

describe("the role the pages run as", () => {
  it("was asked for no call IAM would refuse it (the bundle's store judges its calls as IAM would)", () => {
    expect(roles.names()).toEqual(["pages"]);
    expect(roles.denials()).toEqual([]);
  });
});
