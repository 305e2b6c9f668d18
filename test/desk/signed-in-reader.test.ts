import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "../../functions/local/server.js";
import { createLogger } from "../../functions/logger.js";
import { createDynamoClient } from "../../functions/store/dynamo-client.js";
import { deskSessionsTable, peopleTables } from "../../functions/store/table-design.js";
import { capture, sha256Of } from "../evidence/evidence-kit.js";
import { AP, opened, post, TOKEN } from "../support/archive.js";
import {
  expectAccessible,
  launchChromium,
  newPerson,
  signIn,
  signInOverHttp,
  startDeskArchive,
  WRITER,
} from "./desk-kit.js";

/**
 * A desk session is a reader of the pages (issue 22): a signed-in restricted-reader sees the
 * restricted victims' values on an incident page exactly as a bearer token's reader does —
 * privately, each read recorded in the audit table — a signed-in user without the role sees
 * the public values only, and an anonymous page stays the public, cacheable one. Sign-out
 * revokes the session on the server: a copy of its cookie is treated as signed out.
 */

const INCIDENT = "desk-reader-2022-04-08";
const READER = {
  name: "Rhea Reader",
  token: "rhea-token-0123456789",
  roles: ["writer", "restricted-reader"],
};
const PUBLIC_NAME = "Olena Public-Desk";
const SEALED = ["Petro Sealed-Desk", "Platform 9"];

let archive: LocalServer;
let browser: Browser;
const logLines: string[] = [];

beforeAll(async () => {
  [archive, browser] = await Promise.all([
    startDeskArchive({
      users: [
        { ...WRITER, roles: [...WRITER.roles] },
        { ...READER, roles: ["writer", "restricted-reader"] },
      ],
      log: createLogger("debug", (line) => logLines.push(line)),
    }),
    launchChromium(),
  ]);
  expect((await post(archive.url, INCIDENT, opened("reader-opened-1"))).status).toBe(201);
  const recorded = await post(archive.url, INCIDENT, {
    eventId: "reader-victims-1",
    type: "VictimsRecorded",
    source: AP,
    attributedTo: { name: "Regional prosecutor's office" },
    data: {
      victims: [
        { name: PUBLIC_NAME, sex: "female", status: "civilian" },
        { name: SEALED[0], sex: "male", status: "civilian", place: SEALED[1] },
      ],
      disclose: { "/data/victims/0/name": "public" },
    },
  });
  expect(recorded.status).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await archive?.close();
  // Of everything logged while people signed in, read and signed out, no line holds a sealed value.
  expect(logLines.length).toBeGreaterThan(10);
  for (const secret of SEALED) expect(logLines.join("\n")).not.toContain(secret);
});

const eventCount = async (): Promise<number> =>
  ((await (await fetch(`${archive.url}/incidents/${INCIDENT}/events`)).json()) as { items: unknown[] }).items
    .length;
const view = () => `${archive.url}/view/${INCIDENT}`;
const sessionCookie = async (person: BrowserContext) =>
  (await person.cookies()).find((c) => c.name === "ledger_session")?.value ?? "";
const asCookie = (value: string) => ({ cookie: `ledger_session=${value}` });
async function auditOfView(): Promise<string[]> {
  const db = createDynamoClient(archive.dynamoEndpoint);
  try {
    const out = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
    return (out.Items ?? []).filter((i) => i.via?.S === "GET /view/{incidentId}").map((i) => i.who?.S ?? "");
  } finally {
    db.destroy();
  }
}

describe("a signed-in desk session on the incident page", () => {
  it("shows a restricted-reader the restricted values, privately, each read recorded", async () => {
    const rhea = await newPerson(browser);
    try {
      const page = await rhea.newPage();
      await signIn(page, archive.url, READER.token);
      const before = (await auditOfView()).filter((who) => who === READER.name).length;
      const answer = await page.goto(view());
      expect(answer?.headers()["cache-control"]).toBe("private, no-store");
      const text = await page.locator("main").textContent();
      expect(text).toContain(PUBLIC_NAME);
      for (const value of SEALED) expect(text).toContain(value);
      await expect(page.locator("[data-restricted]").count()).resolves.toBeGreaterThan(0);
      await expectAccessible(browser, rhea, view());
      // Over HTTP, with the browser's cookie: the same page, the same headers.
      const again = await fetch(view(), { headers: asCookie(await sessionCookie(rhea)) });
      expect(again.headers.get("cache-control")).toBe("private, no-store");
      const html = await again.text();
      for (const value of SEALED) expect(html).toContain(value);
      const after = (await auditOfView()).filter((who) => who === READER.name).length;
      // Three reads (the page, axe's copy of it, the fetch), each recorded under the reader's name.
      expect(after - before).toBe(3);
    } finally {
      await rhea.close();
    }
  });

  it("shows a signed-in user without the role the public values only", async () => {
    const rita = await newPerson(browser);
    try {
      const page = await rita.newPage();
      await signIn(page, archive.url, WRITER.token);
      const before = (await auditOfView()).length;
      const answer = await page.goto(view());
      // Still this person's page (it carries their form token), never a shared cache's.
      expect(answer?.headers()["cache-control"]).toMatch(/^private/);
      const html = await page.content();
      expect(html).toContain(PUBLIC_NAME);
      for (const value of SEALED) expect(html).not.toContain(value);
      expect(html).not.toContain("data-restricted");
      expect((await auditOfView()).length).toBe(before);
    } finally {
      await rita.close();
    }
  });

  it("keeps the anonymous page public and cacheable", async () => {
    const anonymous = await fetch(view());
    expect(anonymous.headers.get("cache-control")).toBe("no-cache");
    expect(anonymous.headers.get("vary")).toMatch(/cookie/i);
    const html = await anonymous.text();
    expect(html).toContain(PUBLIC_NAME);
    for (const value of SEALED) expect(html).not.toContain(value);
  });
});

describe("the forms that pick people by their entries", () => {
  const form = (slug: string) => `${archive.url}/desk/incidents/${INCIDENT}/${slug}`;
  const auditOf = async (via: string) => {
    const db = createDynamoClient(archive.dynamoEndpoint);
    try {
      const out = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
      return (out.Items ?? []).filter((i) => i.via?.S === via).map((i) => i.who?.S ?? "");
    } finally {
      db.destroy();
    }
  };
  const optionsOf = (html: string) =>
    [...html.matchAll(/<option value="[^"]+#\d+"[^>]*>([^<]*)</g)].map((m) => m[1]);

  it("name each victim as the incident page would for this reader: sealed names for a restricted-reader only, recorded", async () => {
    const before = await auditOf("desk form victims-link");
    const rhea = await signInOverHttp(archive.url, READER.token);
    const forRhea = await (await fetch(form("victims-link"), { headers: { cookie: rhea } })).text();
    const options = optionsOf(forRhea);
    expect(options).toHaveLength(4);
    expect(options[0]).toContain(`person 1: \u2068${PUBLIC_NAME}\u2069`);
    expect(options[1]).toContain(`person 2: \u2068${SEALED[0]}\u2069`);
    expect(forRhea).toContain("data-restricted");
    expect((await auditOf("desk form victims-link")).length - before.length).toBe(1);

    // A writer without the role picks by the public values alone; nothing of theirs is recorded.
    const rita = await signInOverHttp(archive.url, WRITER.token);
    const forRita = await (await fetch(form("victims-link"), { headers: { cookie: rita } })).text();
    expect(optionsOf(forRita)[0]).toContain(`person 1: \u2068${PUBLIC_NAME}\u2069`);
    expect(optionsOf(forRita)[1]).toMatch(/person 2 \(male, civilian\)$/);
    for (const value of SEALED) expect(forRita).not.toContain(value);
    expect(forRita).not.toContain("data-restricted");
    expect(await auditOf("desk form victims-link")).toEqual([...before, READER.name]);
  });

  it("show an editor who may read them the values each redaction box would withhold", async () => {
    const editor = await signInOverHttp(archive.url, TOKEN);
    const html = await (
      await fetch(`${form("redaction")}?target=reader-victims-1`, { headers: { cookie: editor } })
    ).text();
    expect(html).toContain(`Person 2: name (\u2068${SEALED[0]}\u2069)`);
    expect(html).toContain(`Person 2: place (\u2068${SEALED[1]}\u2069)`);
    expect(html).toContain("data-restricted");
  });
});

describe("sign-out", () => {
  it("revokes the session on the server: a copied cookie is treated as signed out", async () => {
    const rhea = await newPerson(browser);
    try {
      const page = await rhea.newPage();
      await signIn(page, archive.url, READER.token);
      await page.goto(`${archive.url}/desk/incidents/${INCIDENT}/denial`);
      const copied = await sessionCookie(rhea);
      const formToken = await page.locator('form.desk-form [name="formToken"]').inputValue();
      // The copy works while the session lives.
      const live = await fetch(`${archive.url}/desk/new`, { headers: asCookie(copied), redirect: "manual" });
      expect(live.status).toBe(200);

      await page.goto(view());
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.getByRole("button", { name: "Sign out" }).first().click(),
      ]);
      await page.waitForLoadState("load");
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Signed out");

      const desk = await fetch(`${archive.url}/desk/new`, { headers: asCookie(copied), redirect: "manual" });
      expect(desk.status).toBe(303);
      expect(desk.headers.get("location")).toMatch(/^\/sign-in\?next=/);
      const pageAfter = await fetch(view(), { headers: asCookie(copied) });
      const html = await pageAfter.text();
      for (const value of SEALED) expect(html).not.toContain(value);
      expect(html).toContain("sign in</a> to add reports");
      const before = await eventCount();
      const replayed = await fetch(`${archive.url}/desk/incidents/${INCIDENT}/denial`, {
        method: "POST",
        headers: {
          ...asCookie(copied),
          origin: archive.url,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({
          formToken,
          eventId: "replayed-after-sign-out",
          "attributedTo.name": "Someone",
          "data.claim": "anything",
          "source.publisher": "Replay Weekly",
        }),
        redirect: "manual",
      });
      expect(replayed.status).toBe(403);
      const after = await eventCount();
      expect(after).toBe(before);

      // The record lasts as long as the session would have, no longer.
      const db = createDynamoClient(archive.dynamoEndpoint);
      try {
        const out = await db.send(new ScanCommand({ TableName: deskSessionsTable(archive.tables) }));
        const expiries = (out.Items ?? []).map((i) => Number(i.expiresAt?.N));
        expect(expiries).toHaveLength(1);
        const left = (expiries[0] ?? 0) - Date.now() / 1000;
        expect(left).toBeGreaterThan(11.9 * 3600);
        expect(left).toBeLessThanOrEqual(12 * 3600 + 1);
      } finally {
        db.destroy();
      }
    } finally {
      await rhea.close();
    }
  });
});

describe("restricted evidence from the incident page", () => {
  const BYTES = "<html>a victim's photograph, restricted</html>";
  const sha256 = sha256Of(BYTES);
  const DESK_EVIDENCE = "/desk/evidence/";

  /** What the restricted-reader's browser saves from the incident page's `link` (no JavaScript). */
  const downloadAsReader = async (link: (tab: Page) => Locator): Promise<Buffer> => {
    const person = await browser.newContext({ acceptDownloads: true, javaScriptEnabled: false });
    try {
      const tab = await person.newPage();
      await signIn(tab, archive.url, READER.token);
      await tab.goto(view());
      const [download] = await Promise.all([tab.waitForEvent("download"), link(tab).click()]);
      return readFileSync(await download.path());
    } finally {
      await person.close();
    }
  };

  it("downloads for a signed-in restricted-reader by session, recorded; others are refused or sent to sign in", async () => {
    const kept = await fetch(`${archive.url}/evidence?access=restricted`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/html" },
      body: BYTES,
    });
    expect(kept.status).toBe(201);
    const captured = await post(archive.url, INCIDENT, capture(BYTES, { access: "restricted" }));
    expect(captured.status).toBe(201);
    await archive.stream.idle();
    const path = `${DESK_EVIDENCE}${sha256}`;

    // The page links restricted bytes to the desk's download, which a browser can follow.
    const anonymous = await fetch(view());
    expect(await anonymous.text()).toContain(`href="${path}"`);
    const unsigned = await fetch(`${archive.url}${path}`, { redirect: "manual" });
    expect([unsigned.status, unsigned.headers.get("location")]).toEqual([
      303,
      `/sign-in?next=${encodeURIComponent(path)}`,
    ]);

    const rita = await signInOverHttp(archive.url, WRITER.token);
    const refused = await fetch(`${archive.url}${path}`, { headers: { cookie: rita } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    const refusal = await refused.text();
    expect(refusal).toContain("restricted-reader");
    // In the desk's words, not the API's title.
    expect(refusal).toContain("<h1>Not allowed</h1>");
    expect(refusal).not.toContain("The caller lacks");

    const rhea = await signInOverHttp(archive.url, READER.token);
    const whole = await fetch(`${archive.url}${path}`, { headers: { cookie: rhea } });
    expect([whole.status, await whole.text()]).toEqual([200, BYTES]);
    expect(whole.headers.get("content-disposition")).toMatch(/^attachment/);
    expect(whole.headers.get("cache-control")).toContain("private");
    const part = await fetch(`${archive.url}${path}`, { headers: { cookie: rhea, range: "bytes=0-5" } });
    expect([part.status, await part.text()]).toEqual([206, "<html>"]);
    // Answers without a body go as the API gives them.
    const beyond = await fetch(`${archive.url}${path}`, { headers: { cookie: rhea, range: "bytes=9999-" } });
    expect([beyond.status, beyond.headers.get("content-range")]).toEqual([416, `bytes */${BYTES.length}`]);
    const unknown = `${DESK_EVIDENCE}${"0".repeat(64)}`;
    expect(
      (await fetch(`${archive.url}${unknown}`, { method: "HEAD", headers: { cookie: rhea } })).status,
    ).toBe(404);
    expect((await fetch(`${archive.url}${unknown}`, { headers: { cookie: rhea } })).status).toBe(404);
    // A download another site starts (a navigation carrying the session cookie) reads nothing.
    const forced = await fetch(`${archive.url}${path}`, {
      headers: { cookie: rhea, "sec-fetch-site": "cross-site" },
    });
    expect(forced.status).toBe(403);
    expect(await forced.text()).toContain("A download another site asked for");

    // In a browser: the page's link, clicked, downloads the bytes (a same-origin navigation).
    const saved = await downloadAsReader((tab) =>
      tab.getByRole("link", { name: "download (restricted readers only)" }),
    );
    expect(saved.toString("utf8")).toBe(BYTES);

    // Each read is recorded as a bearer token's would be: who, and the bytes.
    const db = createDynamoClient(archive.dynamoEndpoint);
    try {
      const out = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
      const reads = (out.Items ?? []).filter(
        (i) => i.pk?.S === `evidence#${sha256}` || i.sha256?.S === sha256,
      );
      // The whole, the range, the range beyond the end and the browser's download, as the API
      // records them; not the download another site asked for.
      expect(reads.map((i) => i.who?.S)).toEqual(Array(4).fill("Rhea Reader"));
    } finally {
      db.destroy();
    }
  });
  it("puts restricted bytes in a proof bundle by session for a restricted-reader, recorded; leaves them out for others", async () => {
    const secret = "<html>a witness's photograph, restricted</html>";
    const eventId = "reader-bundle-capture";
    const kept = await fetch(`${archive.url}/evidence?access=restricted`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "text/html" },
      body: secret,
    });
    expect(kept.status).toBe(201);
    expect(
      (await post(archive.url, INCIDENT, capture(secret, { access: "restricted" }, eventId))).status,
    ).toBe(201);
    const logged = await fetch(`${archive.url}/incidents/${INCIDENT}/events/${eventId}/proof?wait=true`);
    expect(logged.status).toBe(200);
    await archive.stream.idle();
    const path = `/desk/bundle/${INCIDENT}/${eventId}`;
    const entries = async (answer: Response) => {
      expect([answer.status, answer.headers.get("content-type")]).toEqual([200, "application/zip"]);
      const dir = mkdtempSync(join(tmpdir(), "ledger-desk-bundle-"));
      try {
        writeFileSync(join(dir, "bundle.zip"), Buffer.from(await answer.arrayBuffer()));
        execFileSync("unzip", ["-q", "bundle.zip", "-d", "out"], { cwd: dir });
        const held = join(dir, "out", "evidence", sha256Of(secret));
        return {
          readme: readFileSync(join(dir, "out", "README.txt"), "utf8"),
          bytes: existsSync(held) ? readFileSync(held, "utf8") : null,
          vkey: existsSync(join(dir, "out", "vkey.txt")),
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };

    // The page links a restricted capture's bundle to the desk's, which a browser can follow,
    // beside anyone's bundle (its bytes left out).
    const page = await (await fetch(view())).text();
    expect(page).toContain(`href="${path}"`);
    expect(page).toContain(`href="/incidents/${INCIDENT}/events/${eventId}/bundle"`);
    const unsigned = await fetch(`${archive.url}${path}`, { redirect: "manual" });
    expect([unsigned.status, unsigned.headers.get("location")]).toEqual([
      303,
      `/sign-in?next=${encodeURIComponent(path)}`,
    ]);
    // Signed in without the role: the bundle, its bytes left out as the API leaves them.
    const rita = await signInOverHttp(archive.url, WRITER.token);
    const without = await entries(await fetch(`${archive.url}${path}`, { headers: { cookie: rita } }));
    expect(without.bytes).toBeNull();
    expect(without.readme).toContain(
      `Left out, restricted (a bundle made by a restricted reader holds them): the bytes of\n  ${sha256Of(secret)}`,
    );
    // A restricted-reader's holds them, and the log's key to check the rest with.
    const rhea = await signInOverHttp(archive.url, READER.token);
    const answer = await fetch(`${archive.url}${path}`, { headers: { cookie: rhea } });
    expect(answer.headers.get("content-disposition")).toMatch(/^attachment/);
    const held = await entries(answer);
    expect(held.bytes).toBe(secret);
    expect(held.readme).toContain("SHA256SUMS");
    expect(held.vkey).toBe(true);
    const forced = await fetch(`${archive.url}${path}`, {
      headers: { cookie: rhea, "sec-fetch-site": "cross-site" },
    });
    expect(forced.status).toBe(403);
    const missing = await fetch(`${archive.url}/desk/bundle/${INCIDENT}/no-such-event`, {
      headers: { cookie: rhea },
    });
    expect([missing.status, missing.headers.get("content-type")]).toEqual([
      404,
      expect.stringMatching(/^text\/html/),
    ]);

    // In a browser: the capture's "proof bundle" link, clicked, saves the bundle with the bytes.
    const saved = await downloadAsReader((tab) =>
      tab
        .locator(`#evidence-${sha256Of(secret)}`)
        .getByRole("link", { name: "proof bundle with the bytes (restricted readers only)" }),
    );
    const fromBrowser = await entries(
      new Response(saved, { headers: { "content-type": "application/zip" } }),
    );
    expect(fromBrowser.bytes).toBe(secret);

    // Each bundle that held the bytes is recorded, as the API's are: not the one without the role,
    // nor the one another site asked for.
    const db = createDynamoClient(archive.dynamoEndpoint);
    try {
      const out = await db.send(new ScanCommand({ TableName: peopleTables(archive.tables).audit }));
      const reads = (out.Items ?? []).filter((i) => i.incidentId?.S === `evidence#${sha256Of(secret)}`);
      expect(reads.map((i) => [i.who?.S, i.via?.S, i.eventId?.S])).toEqual([
        ["Rhea Reader", "bundle", eventId],
        ["Rhea Reader", "bundle", eventId],
      ]);
    } finally {
      db.destroy();
    }
  });
});
