import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { BROWSER_ACCEPT } from "../support/archive.js";
import { startDeskArchive, WRITER } from "./desk-kit.js";

/**
 * The desk's origin check with a configured public origin (LEDGER_PUBLIC_URL): the origin a
 * browser names is compared with it, never with the request's Host, which a client chooses.
 */

const PUBLIC = "https://ledger.example.org";
let archive: LocalServer;
beforeAll(async () => {
  // Configured as people write it, with a trailing slash: every link is built on its origin.
  archive = await startDeskArchive({ publicUrl: `${PUBLIC}/` });
});
afterAll(() => archive?.close());

/** POST /sign-in with the token as a form would send it, with the Host and Origin given. */
function signInPost(headers: {
  host?: string;
  origin: string;
}): Promise<{ status: number; type: string; text: string }> {
  const body = new URLSearchParams({ token: WRITER.token, next: "/desk" }).toString();
  return new Promise((resolve, reject) => {
    const req = request(`${archive.url}/sign-in`, {
      method: "POST",
      headers: {
        ...headers,
        accept: BROWSER_ACCEPT,
        "content-type": "application/x-www-form-urlencoded",
        "content-length": Buffer.byteLength(body),
      },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), text }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the desk behind a configured public origin", () => {
  it("takes a form posted from the public origin, whatever Host the request names", async () => {
    expect((await signInPost({ origin: PUBLIC })).status).toBe(303);
    expect((await signInPost({ host: "ledger.example.org", origin: PUBLIC })).status).toBe(303);
  });

  it("gives upload URLs on the public origin, as every other link", async () => {
    const asked = await fetch(`${archive.url}/evidence/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${WRITER.token}`, "content-type": "application/json" },
      body: JSON.stringify({ sha256: "c".repeat(64), size: 10, mediaType: "text/plain" }),
    });
    expect(asked.status).toBe(201);
    const { uploadUrl } = (await asked.json()) as { uploadUrl: string };
    expect(uploadUrl.startsWith(`${PUBLIC}/evidence/uploads/${"c".repeat(64)}?`)).toBe(true);
  });

  it("refuses a form from another origin, even one that names itself in a forged Host (403)", async () => {
    const forged = await signInPost({ host: "evil.example", origin: "http://evil.example" });
    expect(forged.status).toBe(403);
    // A person is reading: the refusal is a page saying why.
    expect(forged.type).toContain("text/html");
    expect(forged.text).toContain("a form posted from another site is refused; nothing was stored");
    expect(forged.text).toContain("A form from another site");
    expect(forged.text).not.toContain("lacks the role");
    // The server's own address is not the public origin either.
    expect((await signInPost({ origin: archive.url })).status).toBe(403);
  });
});
