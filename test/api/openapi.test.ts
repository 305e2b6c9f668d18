import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiPart, openApiDocument } from "../../functions/http/openapi.js";
import type { LocalServer } from "../../functions/local/server.js";
import { KRAMATORSK, loadSample } from "../dashboard/dashboard-kit.js";
import { call, startArchive } from "../support/archive.js";
import { ResponseValidator } from "../support/openapi-validator.js";

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Json[];
  parameters?: { name: string; in: string; schema?: Json }[];
  responses: Record<string, { links?: Json }>;
};
const METHODS = ["get", "put", "post", "delete", "patch"] as const;

let archive: LocalServer;
let doc: Json;
const served = () => doc.paths as Record<string, Record<string, Operation>>;
const operations = () =>
  Object.entries(served()).flatMap(([path, item]) =>
    METHODS.flatMap((m) => (item[m] ? [{ path, method: m, op: item[m] as Operation }] : [])),
  );

/** A value each documented query parameter accepts, so a request can carry all of them. */
const SAMPLE_QUERY: Record<string, string> = {
  after: "0",
  limit: "5",
  kind: "missile-strike",
  country: "UA",
  contested: "true",
  minVersion: "1",
  // /log/consistency requires `from` (the tree size a verifier holds): 0 holds for any tree.
  from: "0",
};
const concrete = (path: string) => path.replace("{incidentId}", KRAMATORSK);
/** The listing's `from` is a day (finding), the log's a tree size. */
const sampleOf = (path: string, name: string) =>
  path === "/incidents" && name === "from" ? "2022-01-01" : SAMPLE_QUERY[name];

beforeAll(async () => {
  archive = await startArchive();
  await loadSample(archive.url);
  doc = (await call(archive.url, "GET", "/openapi.json")).body;
});
afterAll(async () => {
  await archive?.close();
});

describe("the OpenAPI document", () => {
  it("is exactly what openApiDocument() builds, a pure function of the schemas", () => {
    expect(doc).toEqual(openApiDocument());
    expect(JSON.stringify(openApiDocument())).toBe(JSON.stringify(openApiDocument()));
  });

  it("lints clean under Redocly's recommended rules: no error, no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({
      source: JSON.stringify(doc, null, 2),
      absoluteRef: "/openapi.json",
      config,
    });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it("gives every operation an id, tags, a summary, a description and its security: none for reads, the bearer for writes", () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      ids.add(op.operationId as string);
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      expect(op.summary, `${method} ${path}`).toBeTruthy();
      expect(op.description, `${method} ${path}`).toBeTruthy();
      // The desk's posts carry its session cookie (test/desk); signing in needs nothing yet.
      const desk = path === "/sign-out" || path.startsWith("/desk");
      const expected =
        method === "get" || path === "/sign-in" ? [] : desk ? [{ session: [] }] : [{ bearer: [] }];
      expect(op.security, `${method} ${path}`).toEqual(expected);
    }
    expect(ids.size).toBe(operations().length);
  });

  it("links an append to the summary and the events it creates, and says how to retry safely", () => {
    const append = served()["/incidents/{incidentId}/events"]?.post as Operation & { description: string };
    const links = append.responses["201"]?.links as Record<string, { operationId: string; parameters: Json }>;
    expect(links.GetSummary).toMatchObject({
      operationId: "getIncident",
      parameters: { incidentId: "$response.body#/incidentId", minVersion: "$response.body#/version" },
    });
    expect(links.ListEvents?.operationId).toBe("listEvents");
    expect(append.description).toMatch(/without\*\* eventId is not safe to retry blindly/);
    expect(append.description).toMatch(/stored twice/);
  });

  it("takes route families' parts with one line each, and refuses a part that repeats a path", () => {
    const part: ApiPart = {
      paths: { "/log/checkpoint": { get: { operationId: "getCheckpoint", responses: {} } } },
      schemas: { Checkpoint: { type: "string" } },
      tags: [{ name: "log", description: "The transparency log." }],
    };
    const withPart = openApiDocument([part]) as { paths: Json; components: { schemas: Json }; tags: Json[] };
    expect(withPart.paths["/log/checkpoint"]).toBeDefined();
    expect(withPart.components.schemas.Checkpoint).toEqual({ type: "string" });
    expect(withPart.tags).toContainEqual({ name: "log", description: "The transparency log." });
    expect(() => openApiDocument([part, part])).toThrow(/repeats the path/);
    const untagged = openApiDocument([
      { paths: { "/feed": { get: { tags: ["feed"], responses: {} } } } },
    ]) as {
      tags: { name: string }[];
    };
    expect(untagged.tags.map((t) => t.name)).toContain("feed");
  });
});

describe("the response validator", () => {
  const summary = async () => (await call(archive.url, "GET", `/incidents/${KRAMATORSK}`)).body;

  it("passes a real answer and fails one that departs from the document in any way", async () => {
    const validator = new ResponseValidator(doc);
    const body = await summary();
    const answer = (status: number, value: unknown, headers: Record<string, string> = {}) => ({
      method: "GET",
      path: `/incidents/${KRAMATORSK}?version=3`,
      status,
      headers: new Headers({ "content-type": "application/json", etag: '"3"', ...headers }),
      text: typeof value === "string" ? value : JSON.stringify(value),
    });
    expect(validator.check(answer(200, body))).toEqual([]);
    const { headHash: _dropped, ...withoutHeadHash } = body;
    expect(validator.check(answer(200, withoutHeadHash)).join()).toMatch(/headHash/);
    expect(validator.check(answer(200, { ...body, surprise: 1 })).join()).toMatch(/additional/);
    expect(validator.check(answer(200, { ...body, contested: "yes" })).join()).toMatch(/boolean/);
    expect(validator.check(answer(200, body, { etag: "W/3" })).join()).toMatch(/ETag|etag|pattern/);
    expect(validator.check(answer(418, body)).join()).toMatch(/not documented/);
    expect(validator.check(answer(200, "<html>", { "content-type": "text/html" })).join()).toMatch(
      /Content-Type/,
    );
    expect(validator.check({ ...answer(200, body), path: "/nowhere" }).join()).toMatch(/not 404/);
    expect(validator.check({ ...answer(404, body), method: "DELETE" }).join()).toMatch(/405/);
  });
});

describe("query parameters", () => {
  it("every route refuses an unknown one with a 400 naming it, and takes every documented one", async () => {
    for (const { path, method, op } of operations()) {
      if (method !== "get" || op.tags?.includes("pages")) continue;
      const url = concrete(path);
      const typo = await call(archive.url, "GET", `${url}?contestd=true&x-y=1`);
      expect(typo.status, url).toBe(400);
      expect(typo.headers.get("content-type")).toBe("application/problem+json");
      expect(typo.body.errors.map((e: { path: string }) => e.path).sort(), url).toEqual([
        "query.contestd",
        "query.x-y",
      ]);
      // All documented parameters but the mutually exclusive trio's other two: accepted.
      const names = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      const given = names.filter((n) => n in SAMPLE_QUERY).map((n) => `${n}=${sampleOf(path, n)}`);
      const answer = await call(archive.url, "GET", `${url}${given.length ? `?${given.join("&")}` : ""}`);
      // Paths with parameters besides the incident (proofs, tiles) are only held to "no unknown name".
      if (!/\{(?!incidentId\})/.test(path)) expect(answer.status, `${url} ${given.join("&")}`).toBe(200);
      else expect(JSON.stringify(answer.body?.errors ?? []), url).not.toMatch(/not a query parameter/);
      for (const name of names) {
        const one = await call(archive.url, "GET", `${url}?${name}=${sampleOf(path, name) ?? "1"}`);
        expect(JSON.stringify(one.body?.errors ?? []), `${url} ${name}`).not.toMatch(/not a query parameter/);
      }
    }
  });

  it("no route takes a query parameter its operation does not document, even one another route takes", async () => {
    const all = new Set(
      operations().flatMap(({ op }) =>
        (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      ),
    );
    for (const { path, method, op } of operations()) {
      if (method !== "get" || op.tags?.includes("pages")) continue;
      const own = new Set((op.parameters ?? []).map((p) => p.name));
      for (const name of [...all].filter((n) => !own.has(n))) {
        const answer = await call(archive.url, "GET", `${concrete(path)}?${name}=1`);
        expect([answer.status, answer.body.errors?.[0]?.path], `${path} ?${name}`).toEqual([
          400,
          `query.${name}`,
        ]);
      }
    }
  });

  it("asOf, version and minVersion are mutually exclusive, as the document says", async () => {
    const getIncident = served()["/incidents/{incidentId}"]?.get as Operation & { description: string };
    expect(getIncident.description).toMatch(/At most one of `asOf`, `version` and `minVersion`/);
    const both = await call(
      archive.url,
      "GET",
      `/incidents/${KRAMATORSK}?asOf=2030-01-01T00:00:00Z&minVersion=1`,
    );
    expect(both.status).toBe(400);
  });
});

describe("methods", () => {
  it("a method a path does not take is a 405 problem with Allow listing exactly the documented ones", async () => {
    for (const [path, item] of Object.entries(served())) {
      const documented = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
      const allow = [...documented, ...(documented.includes("GET") ? ["HEAD"] : [])].sort();
      for (const method of METHODS.map((m) => m.toUpperCase()).filter((m) => !documented.includes(m))) {
        const answer = await call(archive.url, method, concrete(path), method === "GET" ? undefined : {});
        expect(answer.status, `${method} ${path}`).toBe(405);
        expect(answer.headers.get("content-type")).toBe("application/problem+json");
        expect((answer.headers.get("allow") ?? "").split(", ").sort(), `${method} ${path}`).toEqual(allow);
      }
    }
    const deleteList = await call(archive.url, "DELETE", "/incidents");
    expect([deleteList.status, deleteList.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
  });

  it("a path that exists nowhere is still a 404", async () => {
    expect((await call(archive.url, "DELETE", "/nowhere/at/all")).status).toBe(404);
  });
});

/** The raw bytes on the wire (fetch would decode them), with the answer's headers. */
function raw(path: string, encoding?: string): Promise<{ headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${archive.url}${path}`,
      { headers: encoding ? { "accept-encoding": encoding } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("compression", () => {
  it("compresses pages, JSON and the document when the client accepts it, and keeps the strong ETag", async () => {
    const sizes: string[] = [];
    for (const path of [
      `/view/${KRAMATORSK}`,
      "/",
      `/incidents/${KRAMATORSK}/events`,
      "/openapi.json",
      "/docs",
      "/codebook",
    ]) {
      const plain = await raw(path);
      const gzipped = await raw(path, "gzip, deflate, br");
      expect(plain.headers["content-encoding"], path).toBeUndefined();
      expect(gzipped.headers["content-encoding"], path).toBe("gzip");
      expect(gzipped.headers.vary, path).toMatch(/Accept-Encoding/i);
      expect(gunzipSync(gzipped.bytes).equals(plain.bytes), path).toBe(true);
      expect(gzipped.bytes.length, path).toBeLessThan(plain.bytes.length / 2);
      sizes.push(`${path}: ${plain.bytes.length} → ${gzipped.bytes.length} bytes`);
    }
    console.log(`gzip: ${sizes.join("; ")}`);
    const summary = await raw(`/incidents/${KRAMATORSK}`, "gzip");
    expect(summary.headers.etag).toMatch(/^"\d+"$/);
    // Below 1 KiB gzip costs more than it saves: a small answer goes out as it is, with its length.
    const health = await raw("/health", "gzip");
    expect([health.headers["content-encoding"], health.headers["content-length"]]).toEqual([undefined, "11"]);
  });
});

describe("/docs", () => {
  it("renders the document's Markdown (code, emphasis, links) rather than showing its marks", async () => {
    const html = (await call(archive.url, "GET", "/docs")).body as string;
    // The schemas are shown as JSON, their text as it is: everything else is rendered.
    const prose = html.replace(/<pre>[\s\S]*?<\/pre>/g, "");
    expect(prose).not.toMatch(/\*\*|`/);
    expect(prose).toContain("<code>If-Match</code>");
    expect(prose).toMatch(/<strong>[^<]+<\/strong>/);
    expect(prose).toContain('<a href="/codebook');
  });
});

describe("what browsers and crawlers ask for", () => {
  it("serves /robots.txt, /favicon.ico, and a meta description on the pages", async () => {
    const robots = await call(archive.url, "GET", "/robots.txt");
    expect([robots.status, robots.headers.get("content-type")]).toEqual([200, "text/plain; charset=UTF-8"]);
    expect(robots.body).toMatch(/^User-agent: \*$/m);
    const icon = await call(archive.url, "GET", "/favicon.ico");
    expect([icon.status, icon.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    expect(icon.body).toMatch(/^<svg /);
    for (const page of ["/", `/view/${KRAMATORSK}`, "/docs", "/codebook"]) {
      const html = (await call(archive.url, "GET", page)).body as string;
      expect(html, page).toMatch(/<meta name="description" content="[^"]{50,}"/);
    }
  });
});
