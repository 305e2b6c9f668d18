import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpSource } from "../../scripts/verify/source.js";

// What the verifier asks of an archive's HTTP server, seen by a real server on loopback.
let server: Server;
let port = 0;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { "Content-Type": "text/plain" }).end("checkpoint\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the verifier's requests", () => {
  it("given an archive on this machine, when it reads, then it asks for the answers uncompressed", async () => {
    for (const host of ["127.0.0.1", "localhost"]) {
      seen.length = 0;
      expect(await httpSource(`http://${host}:${port}/`).checkpoint()).toBe("checkpoint\n");
      expect(seen.map((h) => h["accept-encoding"])).toEqual(["identity"]);
    }
  });

  it("given an archive elsewhere, when it reads, then it leaves compression to the fetch's default", async () => {
    const asked: (RequestInit | undefined)[] = [];
    const recording: typeof fetch = async (_url, init) => {
      asked.push(init);
      return new Response("checkpoint\n");
    };
    await httpSource("https://archive.example.org", recording).checkpoint();
    await httpSource("http://127.0.0.1.example.org", recording).checkpoint();
    expect(asked.map((init) => new Headers(init?.headers).get("accept-encoding"))).toEqual([null, null]);
    // And the default does ask for gzip: that is what an archive elsewhere is read with.
    seen.length = 0;
    await fetch(`http://127.0.0.1:${port}/`);
    expect(seen[0]?.["accept-encoding"]).toMatch(/gzip/);
  });
});
