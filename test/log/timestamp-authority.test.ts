import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTimestampResponse } from "../../events/transparency/timestamp-token.js";
import { TimestampAuthority, TimestampAuthorityError } from "../../functions/log/timestamp-authority.js";
import { type LocalTsa, startLocalTsa } from "../support/local-tsa.js";

const BODY = "localhost/incident-ledger\n3\nq0bGXkVv5pVDhVvwEdsEH3ZgxVl9RAsM3VpBcn9WvAo=\n";
const run = promisify(execFile);

/** An endpoint that answers every query with whatever `answer` gives (a TSA that misbehaves). */
async function fakeTsa(answer: () => { status: number; body: Uint8Array } | null) {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const a = answer();
      if (!a) return;
      res.writeHead(a.status, { "content-type": "application/timestamp-reply" }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let tsa: LocalTsa;
beforeAll(async () => {
  tsa = await startLocalTsa();
});
afterAll(() => tsa.close());

describe("the RFC 3161 client (functions/log/timestamp-authority.ts)", () => {
  it("sends a SHA-256 imprint of the body with a nonce and certReq, and keeps the granted response whole", async () => {
    const stamp = await new TimestampAuthority(tsa.url).stamp(BODY);
    expect(Math.abs(stamp.genTime.getTime() - Date.now())).toBeLessThan(60_000);
    expect(Buffer.from(stamp.token)).toEqual(Buffer.from(tsa.replies.at(-1) ?? []));
    // The query, as openssl reads it.
    const query = join(tsa.dir, "last.tsq");
    await writeFile(query, tsa.queries.at(-1) ?? new Uint8Array());
    const { stdout } = await run("openssl", ["ts", "-query", "-in", query, "-text"]);
    expect(stdout).toContain("Hash Algorithm: sha256");
    expect(stdout).toContain("Certificate required: yes");
    expect(stdout).not.toContain("Nonce: unspecified");
    const digest = createHash("sha256").update(BODY).digest();
    expect(Buffer.from(tsa.queries.at(-1) ?? []).includes(digest)).toBe(true);
    expect(readTimestampResponse(stamp.token).digest).toEqual(
      new Uint8Array(createHash("sha256").update(BODY).digest()),
    );
  });

  it("refuses a response over another imprint, one with another nonce, a rejection, an HTTP error, garbage, and no answer in time", async () => {
    const authority = new TimestampAuthority(tsa.url);
    const other = await authority.stamp(`${BODY}x`);
    const same = await authority.stamp(BODY);
    // A rejection from openssl itself: a SHA-1 query, which this TSA's configuration does not accept.
    await run("openssl", [
      "ts",
      "-query",
      "-data",
      join(tsa.dir, "tsa.cnf"),
      "-sha1",
      "-out",
      join(tsa.dir, "sha1.tsq"),
    ]);
    const rejected = await fetch(tsa.url, {
      method: "POST",
      headers: { "content-type": "application/timestamp-query" },
      body: await readFile(join(tsa.dir, "sha1.tsq")),
    });
    const rejection = new Uint8Array(await rejected.arrayBuffer());

    const cases: [string, { status: number; body: Uint8Array } | null, RegExp][] = [
      ["another imprint", { status: 200, body: other.token }, /message imprint [0-9a-f]{64} is not/],
      ["another request's nonce", { status: 200, body: same.token }, /nonce is not the request's/],
      ["a rejection", { status: 200, body: rejection }, /did not grant the request \(status 2/],
      ["an HTTP error", { status: 500, body: new Uint8Array() }, /answered 500/],
      [
        "garbage",
        { status: 200, body: new TextEncoder().encode("<html>busy</html>") },
        /not an RFC 3161 TimeStampResp/,
      ],
      ["no answer", null, /no answer within 300 ms/],
    ];
    for (const [what, answer, message] of cases) {
      const fake = await fakeTsa(() => answer);
      try {
        const attempt = new TimestampAuthority(fake.url, 300).stamp(BODY);
        await expect(attempt, what).rejects.toThrow(TimestampAuthorityError);
        await expect(attempt, what).rejects.toThrow(message);
      } finally {
        await fake.close();
      }
    }
  });
});
