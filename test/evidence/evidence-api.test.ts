import { request } from "node:http";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { peopleTables } from "../../functions/store/table-design.js";
import { call, casualties, opened, post, TOKEN } from "../support/archive.js";
import { capture, digestHeader, sha256Of, startEvidenceArchive, upload } from "./evidence-kit.js";

let archive: Awaited<ReturnType<typeof startEvidenceArchive>>;
let base: string;
beforeAll(async () => {
  archive = await startEvidenceArchive({
    evidenceMax: 64 * 1024,
    users: [{ name: "plain-writer", token: "plain-writer-token-0123", roles: ["writer"] }],
  });
  base = archive.server.url;
});
afterAll(() => archive.close());

const PAGE = "<html><body><p>What the page said on 8 April</p></body></html>";

describe("POST /evidence and GET /evidence/{sha256}", () => {
  it("keeps new bytes (201), knows them again (200) and serves them with their headers", async () => {
    const first = await upload(base, PAGE, { "repr-digest": digestHeader(PAGE) });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      sha256: sha256Of(PAGE),
      size: PAGE.length,
      mediaType: "text/html",
      href: `/evidence/${sha256Of(PAGE)}`,
    });
    const again = await upload(base, PAGE);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(archive.files()).toEqual([sha256Of(PAGE), `${sha256Of(PAGE)}.json`]);

    // Bytes no restricted capture names are anyone's to read.
    expect((await fetch(`${base}${first.body.href}`)).status).toBe(200);
    const got = await fetch(`${base}${first.body.href}`, {
      headers: { authorization: `Bearer ${TOKEN}`, "accept-encoding": "gzip" },
    });
    expect(got.status).toBe(200);
    expect(await got.text()).toBe(PAGE);
    expect(got.headers.get("content-type")).toBe("text/html");
    expect(got.headers.get("content-length")).toBe(String(PAGE.length));
    expect(got.headers.get("etag")).toBe(`"${sha256Of(PAGE)}"`);
    expect(got.headers.get("repr-digest")).toBe(digestHeader(PAGE));
    expect(got.headers.get("content-disposition")).toBe(`attachment; filename="${sha256Of(PAGE)}.html"`);
    expect(got.headers.get("content-encoding")).toBeNull();
  });

  it("serves ranges (206) and refuses one beyond the end (416)", async () => {
    const sha = sha256Of(PAGE);
    const auth = { authorization: `Bearer ${TOKEN}` };
    const part = await fetch(`${base}/evidence/${sha}`, { headers: { ...auth, range: "bytes=6-11" } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe(PAGE.slice(6, 12));
    expect(part.headers.get("content-range")).toBe(`bytes 6-11/${PAGE.length}`);
    const tail = await fetch(`${base}/evidence/${sha}`, { headers: { ...auth, range: "bytes=-7" } });
    expect(await tail.text()).toBe(PAGE.slice(-7));
    const beyond = await fetch(`${base}/evidence/${sha}`, { headers: { ...auth, range: "bytes=9999-" } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${PAGE.length}`);
    expect((await call(base, "GET", `/evidence/${"0".repeat(64)}`)).status).toBe(404);
    expect((await call(base, "GET", "/evidence/not-a-hash")).status).toBe(400);
  });

  it("refuses an empty body, keeping nothing", async () => {
    const before = archive.files();
    const answer = await upload(base, "");
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([{ path: "(body)", message: "must hold the evidence bytes" }]);
    expect(archive.files()).toEqual(before);
  });

  it("refuses a missing, malformed or form Content-Type (415)", async () => {
    const before = archive.files();
    for (const type of [
      "",
      "not a type",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
    ]) {
      const answer = await fetch(`${base}/evidence`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, ...(type ? { "content-type": type } : {}) },
        body: type === "" ? new Blob(["bytes"]) : "bytes",
      });
      expect(answer.status, type).toBe(415);
      expect(((await answer.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe("Content-Type");
    }
    expect(archive.files()).toEqual(before);
  });

  it("refuses bytes over LEDGER_EVIDENCE_MAX (413), leaving no file, declared or streamed", async () => {
    const before = archive.files();
    const big = new Uint8Array(64 * 1024 + 1).fill(7);
    expect((await upload(base, big)).status).toBe(413);
    // Without a Content-Length: the limit is met while streaming.
    const streamed = await fetch(`${base}/evidence`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/octet-stream" },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(16 * 1024).fill(i));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(archive.files()).toEqual(before);
  });

  it("refuses bytes whose Repr-Digest lies (422), keeping nothing", async () => {
    const before = archive.files();
    const answer = await upload(base, "some other bytes", {
      "repr-digest": digestHeader("what was promised"),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors[0].path).toBe("Repr-Digest");
    expect(archive.files()).toEqual(before);
    expect((await upload(base, "x", { "repr-digest": "sha-256=:nope:" })).status).toBe(400);
  });

  it("keeps nothing of a client that disconnects mid-upload", async () => {
    const before = archive.files();
    await new Promise<void>((resolve) => {
      const url = new URL(`${base}/evidence`);
      const req = request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "video/mp4", "content-length": "40000" },
      });
      req.on("error", () => resolve());
      req.write(new Uint8Array(20000).fill(1));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 200);
    });
    // The server notices the reset and removes its temporary file.
    for (let i = 0; i < 50 && archive.files().length !== before.length; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(archive.files()).toEqual(before);
  });

  it("stores the same bytes posted by two clients at once as one blob, answering 201 and 200", async () => {
    const bytes = new Uint8Array(48 * 1024).map((_, i) => i % 251);
    const answers = await Promise.all([upload(base, bytes), upload(base, bytes), upload(base, bytes)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.sha256))).toEqual(new Set([sha256Of(bytes)]));
    expect(archive.files().filter((f) => f.startsWith(sha256Of(bytes)))).toEqual([
      sha256Of(bytes),
      `${sha256Of(bytes)}.json`,
    ]);
    expect(archive.files().some((f) => f.startsWith("."))).toBe(false);
  });

  it("needs a writer to upload", async () => {
    const none = await fetch(`${base}/evidence`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(none.status).toBe(401);
  });

  it("honours a Range under an If-Range only when it names the strong ETag: else the whole (200)", async () => {
    const sha = sha256Of(PAGE);
    const read = (range: string, ifRange: string) =>
      fetch(`${base}/evidence/${sha}`, { headers: { range, "if-range": ifRange } });
    const matching = await read("bytes=6-11", `"${sha}"`);
    expect(matching.status).toBe(206);
    expect(await matching.text()).toBe(PAGE.slice(6, 12));
    for (const other of [`"${sha256Of("other bytes")}"`, `W/"${sha}"`, "Fri, 08 Apr 2022 09:00:00 GMT"]) {
      const whole = await read("bytes=6-11", other);
      expect(whole.status, other).toBe(200);
      expect(await whole.text(), other).toBe(PAGE);
      expect(whole.headers.get("content-range"), other).toBeNull();
      expect(whole.headers.get("content-length"), other).toBe(String(PAGE.length));
    }
    // A range beyond the end is ignored with it, not refused.
    expect((await read("bytes=9999-", `"${sha256Of("other bytes")}"`)).status).toBe(200);
  });
});

describe("bytes restricted as they are uploaded (?access=restricted, or access in an upload request)", () => {
  it("never serves them to a reader without the role, before any capture names them", async () => {
    const photo = "<html>a photo of a victim, in spirit</html>";
    const posted = await fetch(`${base}/evidence?access=restricted`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "image/jpeg" },
      body: photo,
    });
    expect(posted.status).toBe(201);
    const href = `${base}/evidence/${sha256Of(photo)}`;
    expect((await fetch(href)).status).toBe(401);
    expect((await fetch(href, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    // The same bytes again without it: still restricted (access only narrows).
    expect((await upload(base, photo)).status).toBe(200);
    expect((await fetch(href)).status).toBe(401);
  });

  it("never restricts bytes already held: an upload cannot hide evidence others read", async () => {
    const page = "<html>a page everyone may read</html>";
    expect((await upload(base, page)).status).toBe(201);
    const again = await fetch(`${base}/evidence?access=restricted`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/html" },
      body: page,
    });
    expect(again.status).toBe(200);
    const asked = await call(base, "POST", "/evidence/uploads", {
      sha256: sha256Of(page),
      size: page.length,
      mediaType: "text/html",
      access: "restricted",
    });
    expect(asked.status).toBe(201);
    expect(
      (await fetch(asked.body.uploadUrl, { method: "PUT", headers: asked.body.headers, body: page })).status,
    ).toBe(200);
    expect((await fetch(`${base}/evidence/${sha256Of(page)}`)).status).toBe(200);
  });

  it("refuses another access with 400 naming it, keeping nothing", async () => {
    const bytes = "bytes with a made-up access";
    const answer = await fetch(`${base}/evidence?access=secret`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/plain" },
      body: bytes,
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { errors: { path: string }[] }).errors).toMatchObject([
      { path: "query.access" },
    ]);
    expect((await fetch(`${base}/evidence/${sha256Of(bytes)}`)).status).toBe(404);
  });

  it("restricts a direct upload's bytes as they arrive, and its URL cannot be changed to public", async () => {
    const video = "a video of a witness, in spirit";
    const asked = await call(base, "POST", "/evidence/uploads", {
      sha256: sha256Of(video),
      size: video.length,
      mediaType: "video/mp4",
      access: "restricted",
    });
    expect(asked.status).toBe(201);
    const { uploadUrl, headers } = asked.body;
    const widened = await fetch(uploadUrl.replace(/&access=restricted/, ""), {
      method: "PUT",
      headers,
      body: video,
    });
    expect(widened.status).toBe(403);
    const put = await fetch(uploadUrl, { method: "PUT", headers, body: video });
    expect(put.status).toBe(201);
    expect((await fetch(`${base}/evidence/${sha256Of(video)}`)).status).toBe(401);
  });
});

describe("direct uploads (POST /evidence/uploads)", () => {
  it("gives this server's URL, which takes exactly the bytes asked for", async () => {
    const bytes = "a large video, in spirit";
    const asked = await call(base, "POST", "/evidence/uploads", {
      sha256: sha256Of(bytes),
      size: bytes.length,
      mediaType: "video/mp4",
    });
    expect(asked.status).toBe(201);
    const { uploadUrl, headers } = asked.body;
    // The public origin (LEDGER_PUBLIC_URL's default: localhost at the server's port), as a
    // release link names it, whatever Host the request gave.
    const origin = `http://localhost:${new URL(base).port}`;
    expect(uploadUrl.startsWith(`${origin}/evidence/uploads/`)).toBe(true);
    const hostForged = await new Promise<string>((resolve, reject) => {
      const body = JSON.stringify({ sha256: sha256Of(bytes), size: bytes.length, mediaType: "video/mp4" });
      const req = request(`${base}/evidence/uploads`, {
        method: "POST",
        headers: {
          host: "evil.example",
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
        },
      });
      req.on("response", (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end(body);
    });
    expect(JSON.parse(hostForged).uploadUrl.startsWith(`${origin}/evidence/uploads/`)).toBe(true);
    expect(headers.authorization).toMatch(/^Bearer upload\./);
    const wrong = await fetch(uploadUrl, {
      method: "PUT",
      headers,
      body: "another video, in spirit",
    });
    expect(wrong.status).toBe(422);
    expect((await call(base, "GET", `/evidence/${sha256Of("another video, in spirit")}`)).status).toBe(404);
    // Another size in the URL than the token was made for; a user's token instead of the upload's.
    const forged = await fetch(uploadUrl.replace(/size=\d+/, "size=3"), {
      method: "PUT",
      headers,
      body: bytes,
    });
    expect(forged.status).toBe(403);
    const anonymous = await fetch(uploadUrl, {
      method: "PUT",
      headers: { ...headers, authorization: `Bearer ${TOKEN}` },
      body: bytes,
    });
    expect(anonymous.status).toBe(401);
    // Fewer bytes than asked for (an upload cut short): said by their size.
    const shorter = await fetch(uploadUrl, { method: "PUT", headers, body: bytes.slice(0, 5) });
    expect(shorter.status).toBe(422);
    expect(((await shorter.json()) as { errors: unknown[] }).errors).toEqual([
      { path: "size", message: `declared ${bytes.length}, received 5` },
    ]);
    // More bytes than asked for: refused by the size the upload declared, not the archive's bound.
    const longer = await fetch(uploadUrl, { method: "PUT", headers, body: `${bytes}, and more` });
    expect(longer.status).toBe(413);
    expect(((await longer.json()) as { detail: string }).detail).toBe(
      `the evidence is over ${bytes.length} bytes (the size this upload declared); nothing was kept`,
    );
    const put = await fetch(uploadUrl, { method: "PUT", headers, body: bytes });
    expect(put.status).toBe(201);
    expect(((await put.json()) as { sha256: string }).sha256).toBe(sha256Of(bytes));
  });

  it("reads its body as the event routes do: a repeated member name is 400, an oversized body 413", async () => {
    const sha256 = sha256Of("a video asked for twice");
    const repeated = await call(
      base,
      "POST",
      "/evidence/uploads",
      `{"sha256":"${sha256}","size":10,"size":20,"mediaType":"video/mp4"}`,
    );
    expect(repeated.status).toBe(400);
    expect(repeated.body.errors).toEqual([{ path: "(body)", message: expect.stringContaining('"size"') }]);
    const oversized = await call(base, "POST", "/evidence/uploads", {
      sha256,
      size: 10,
      mediaType: `video/mp4; x=${"y".repeat(64 * 1024)}`,
    });
    expect(oversized.status).toBe(413);
  });

  it("names a refused field as a problem of the upload request, not of an event (422)", async () => {
    const refused = await call(base, "POST", "/evidence/uploads", {
      sha256: "not-a-hash",
      size: 10,
      mediaType: "video/mp4",
    });
    expect(refused.status).toBe(422);
    expect(refused.body.title).toBe("The upload request is not valid");
    expect(refused.body.errors[0].path).toBe("sha256");
    const form = await call(base, "POST", "/evidence/uploads", {
      sha256: sha256Of("a form"),
      size: 10,
      mediaType: "multipart/form-data",
    });
    expect(form.status).toBe(422);
    expect(form.body.title).toBe("The upload request is not valid");
    expect(form.body.errors[0].path).toBe("mediaType");
  });
});

describe("EvidenceCaptured and evidence lists", () => {
  const bytes = "<html>a photo page</html>";
  it("refuses a capture of bytes not held, or held with another size (422 naming data.sha256)", async () => {
    expect((await post(base, "evidence-one", opened("ev-opened-1"))).status).toBe(201);
    const missing = await post(base, "evidence-one", capture("never uploaded"));
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].path).toBe("data.sha256");
    expect((await upload(base, bytes)).status).toBe(201);
    const c = capture(bytes);
    const wrongSize = await post(base, "evidence-one", { ...c, data: { ...c.data, size: 3 } });
    expect(wrongSize.status).toBe(422);
    expect(wrongSize.body.errors[0].path).toBe("data.sha256");
    expect((await call(base, "GET", "/incidents/evidence-one/events")).body.items).toHaveLength(1);
  });

  it("stores a capture of held bytes, counts it in the summary and makes the bytes public", async () => {
    const stored = await post(base, "evidence-one", capture(bytes, {}, "ev-capture-1"));
    expect(stored.status).toBe(201);
    const again = await post(base, "evidence-one", capture(bytes, {}, "ev-capture-1"));
    expect(again.status).toBe(200);
    const summary = await call(base, "GET", "/incidents/evidence-one?minVersion=2");
    expect(summary.body.evidence).toEqual({
      count: 1,
      latest: [
        {
          eventId: "ev-capture-1",
          sha256: sha256Of(bytes),
          kind: "web-page",
          title: "The article as published",
          access: "public",
        },
      ],
    });
    expect((await fetch(`${base}/evidence/${sha256Of(bytes)}`)).status).toBe(200);
  });

  it("takes an evidence list naming this incident's captures, and refuses another incident's (422)", async () => {
    const report = {
      ...casualties({ killed: { value: 50, qualifier: "at-least" } }),
      evidence: [sha256Of(bytes)],
    };
    const ok = await post(base, "evidence-one", report);
    expect(ok.status).toBe(201);
    const events = (await call(base, "GET", "/incidents/evidence-one/events")).body.items;
    expect(events[events.length - 1].evidence).toEqual([sha256Of(bytes)]);

    expect((await post(base, "evidence-two", opened())).status).toBe(201);
    const other = await post(base, "evidence-two", report);
    expect(other.status).toBe(422);
    expect(other.body.errors).toEqual([
      { path: "evidence[0]", message: expect.stringContaining(sha256Of(bytes)) },
    ]);
    // In one batch with its capture: accepted.
    const both = await post(base, "evidence-two", { events: [capture(bytes), report] });
    expect(both.status).toBe(201);
  });

  it("finds a capture older than the summary's 100 newest, and still refuses one never captured", async () => {
    expect((await post(base, "evidence-many", opened())).status).toBe(201);
    const pieces = Array.from({ length: 105 }, (_, i) => `<html>piece ${i}</html>`);
    for (const bytes of pieces) expect((await upload(base, bytes)).status).toBeLessThan(300);
    for (let i = 0; i < pieces.length; i += 25) {
      const events = pieces.slice(i, i + 25).map((bytes) => capture(bytes));
      expect((await post(base, "evidence-many", { events })).status).toBe(201);
    }
    const summary = await call(base, "GET", "/incidents/evidence-many?minVersion=106");
    expect(summary.body.evidence.count).toBe(105);
    expect(summary.body.evidence.latest).toHaveLength(100);
    const oldest = {
      ...casualties({ killed: { value: 1, qualifier: "exact" } }),
      evidence: [sha256Of(pieces[0] as string)],
    };
    expect((await post(base, "evidence-many", oldest)).status).toBe(201);
    const never = { ...oldest, evidence: [sha256Of("never captured here")] };
    expect((await post(base, "evidence-many", never)).status).toBe(422);
  });

  it("keeps restricted bytes from readers without the role (401/403) and records each read", async () => {
    const secret = "<html>an image of a person</html>";
    await upload(base, secret);
    expect(
      (await post(base, "evidence-one", capture(secret, { access: "restricted", kind: "image" }))).status,
    ).toBe(201);
    const href = `${base}/evidence/${sha256Of(secret)}`;
    expect((await fetch(href)).status).toBe(401);
    expect((await fetch(href, { headers: { authorization: "Bearer plain-writer-token-0123" } })).status).toBe(
      403,
    );
    const read = await fetch(href, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get("cache-control")).toContain("no-store");
    // Recorded in the audit table, as restricted disclosures are: who, which bytes, how, when.
    const db = createDynamoClient(archive.server.dynamoEndpoint);
    const audit = await db.send(new ScanCommand({ TableName: peopleTables(archive.server.tables).audit }));
    db.destroy();
    const reads = (audit.Items ?? []).filter((i) => i.incidentId?.S === `evidence#${sha256Of(secret)}`);
    expect(reads.map((i) => [i.who?.S, i.via?.S, i.sha256?.S])).toEqual([
      ["test-writer", "GET /evidence/{sha256}", sha256Of(secret)],
    ]);
    // A later public capture of the same bytes does not make them public.
    expect((await post(base, "evidence-two", capture(secret, { kind: "image" }))).status).toBe(201);
    expect((await fetch(href)).status).toBe(401);
    // Nor is it shown as public in the incident the restriction was recorded in: summary and list.
    const again = {
      ...capture(secret, { kind: "image", title: "the same image, again" }),
      eventId: "ev-again",
    };
    const stored = await post(base, "evidence-one", again);
    expect(stored.status).toBe(201);
    const summary = await call(base, "GET", `/incidents/evidence-one?minVersion=${stored.body.version}`);
    const rows = (summary.body.evidence.latest as { sha256: string; access: string }[]).filter(
      (r) => r.sha256 === sha256Of(secret),
    );
    expect(rows.map((r) => r.access)).toEqual(["restricted", "restricted"]);
    const listed = await call(base, "GET", "/incidents/evidence-one/evidence");
    expect(
      (listed.body.items as { sha256: string; access: string }[])
        .filter((r) => r.sha256 === sha256Of(secret))
        .map((r) => r.access),
    ).toEqual(["restricted", "restricted"]);
  });
});

describe("the incident page", () => {
  it("lists each capture with its hash, size, source, capture time and tool, links to the bytes and bundle, and the reports resting on it", async () => {
    const bytes = "<html>a photo page</html>";
    const page = await fetch(`${base}/view/evidence-one`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const section = html.slice(html.indexOf('id="evidence"'));
    expect(section).toContain(sha256Of(bytes));
    expect(section).toContain(`(${bytes.length} bytes), text/html`);
    expect(section).toContain('href="https://example.org/article"');
    expect(section).toContain(`href="/evidence/${sha256Of(bytes)}"`);
    expect(section).toContain('href="/incidents/evidence-one/events/ev-capture-1/bundle"');
    expect(section).toMatch(/Reports resting on it<\/dt><dd><a href="#ev-[^"]+">v3 Casualties reported<\/a>/);
    expect(section).toContain("download (restricted readers only)");
  });
});
